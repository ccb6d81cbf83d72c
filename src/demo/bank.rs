//! The bank domain of thesis Figs. 3.1–3.2: "π2 occurs when a person and a bank account interact
//! in a particular way, and results in three new processes corresponding to the same person, the
//! same bank account with a reduced balance, and the sum of money that has been withdrawn."
//!
//! Primal classes `person`, `account`, `money`; primitives `arrive` (attention to a person starts,
//! like the thesis's π6), `open` (an account starts), `withdraw` (π2 of Fig. 3.1), `spend` (a
//! person spends money) and `leave` (like π7). Level-0 classes: `account_use` (an account's
//! withdrawals and what was bought with them; "any applicable constraint, repeatedly") and
//! `shopping_trip` (a person arrives, withdraws and spends, repeatedly, and may leave; a
//! sequence). They overlap on the shared constraint `Con_spend`. Level 1: `household`, trips
//! and accounts linked by the money that flows between them.

use std::sync::Arc;

use crate::ets::{Alphabet, ConstraintSet, PatternBuilder, Schedule, Setting, Struct};

/// The bank alphabet.
pub fn alphabet() -> Alphabet {
    let mut a = Alphabet::new();
    let person = a.add_primal_class("person").expect("fresh");
    let account = a.add_primal_class("account").expect("fresh");
    let money = a.add_primal_class("money").expect("fresh");
    let s = |v: &[(&str, crate::ets::PrimalClassId)]| v.iter().map(|(n, c)| (n.to_string(), *c)).collect::<Vec<_>>();
    a.add_primitive("arrive", &[], &s(&[("person", person)]))
        .expect("fresh");
    a.add_primitive("open", &[], &s(&[("account", account)]))
        .expect("fresh");
    a.add_primitive(
        "withdraw",
        &s(&[("person", person), ("account", account)]),
        &s(&[("person", person), ("account", account), ("money", money)]),
    )
    .expect("fresh");
    a.add_primitive(
        "spend",
        &s(&[("person", person), ("money", money)]),
        &s(&[("person", person)]),
    )
    .expect("fresh");
    a.add_primitive("leave", &s(&[("person", person)]), &[]).expect("fresh");
    a
}

/// The bank class setting (levels 0 and 1), built through the API.
pub fn setting() -> Setting {
    let mut st = Setting::new(Arc::new(alphabet()));
    let c = |st: &mut Setting, name: &str, b: PatternBuilder| st.add_named_constraint(name, 0, &b).expect("valid");
    let first = c(
        &mut st,
        "Con_first_withdraw",
        PatternBuilder::new()
            .context("o", "open")
            .var("w", "withdraw")
            .process("o", "account", "w", "account"),
    );
    let next = c(
        &mut st,
        "Con_next_withdraw",
        PatternBuilder::new()
            .context("w1", "withdraw")
            .var("w2", "withdraw")
            .process("w1", "account", "w2", "account"),
    );
    let spend = c(
        &mut st,
        "Con_spend",
        PatternBuilder::new()
            .context("w", "withdraw")
            .var("s", "spend")
            .process("w", "money", "s", "money")
            .process("w", "person", "s", "person"),
    );
    let customer = c(
        &mut st,
        "Con_customer",
        PatternBuilder::new()
            .context("a", "arrive")
            .var("w", "withdraw")
            .process("a", "person", "w", "person"),
    );
    let again = c(
        &mut st,
        "Con_after_spend",
        PatternBuilder::new()
            .context("s", "spend")
            .var("w", "withdraw")
            .process("s", "person", "w", "person"),
    );
    let leave = c(
        &mut st,
        "Con_leave",
        PatternBuilder::new()
            .context("s", "spend")
            .var("l", "leave")
            .process("s", "person", "l", "person"),
    );
    let set = |name: &str, cs: Vec<crate::ets::ConstraintId>, null: bool| ConstraintSet {
        name: name.into(),
        constraints: cs,
        null,
    };
    st.add_class(
        "account_use",
        0,
        None,
        vec![set("A", vec![first], false), set("B", vec![next, spend], false)],
        Schedule::Seq(vec![Schedule::Step(0), Schedule::star(Schedule::Step(1))]),
    )
    .expect("valid");
    st.add_class(
        "shopping_trip",
        0,
        None,
        vec![
            set("A", vec![customer], false),
            set("B", vec![spend], false),
            set("C", vec![again], false),
            set("D", vec![leave], true),
        ],
        Schedule::Seq(vec![
            Schedule::Step(0),
            Schedule::Step(1),
            Schedule::star(Schedule::Seq(vec![Schedule::Step(2), Schedule::Step(1)])),
            Schedule::Step(3),
        ]),
    )
    .expect("valid");
    let funds = st
        .add_named_constraint(
            "Con1_funds",
            1,
            &PatternBuilder::new()
                .context("a", "account_use")
                .var("t", "shopping_trip")
                .cel("a", "t", "Con_spend"),
        )
        .expect("valid");
    let pays = st
        .add_named_constraint(
            "Con1_pays_from",
            1,
            &PatternBuilder::new()
                .context("t", "shopping_trip")
                .var("a", "account_use")
                .cel("t", "a", "Con_spend"),
        )
        .expect("valid");
    st.add_class(
        "household",
        1,
        None,
        vec![set("A", vec![funds], false), set("B", vec![funds, pays], false)],
        Schedule::Seq(vec![Schedule::Step(0), Schedule::star(Schedule::Step(1))]),
    )
    .expect("valid");
    st
}

/// The observation of Fig. 3.2, extended: Jim (ids 1xx) and Bob (ids 2xx) each arrive, withdraw
/// from their own account (π_{2a}, π_{2b}), spend the money, withdraw again and leave; Jim's second
/// withdrawal is from Bob's account (a shared household).
pub fn observation(setting: &Setting) -> Struct {
    let al = setting.alphabet().clone();
    let k = |n: &str| al.kind(n).expect("bank primitive");
    let mut s = Struct::new(al.clone());
    let add = |s: &mut Struct, kind: &str, id: u64| s.add_primitive_with_id(k(kind), id).expect("fresh id");
    let (ja, jo, jw1, js1, jw2, js2, jl) = (
        add(&mut s, "arrive", 100),
        add(&mut s, "open", 101),
        add(&mut s, "withdraw", 102),
        add(&mut s, "spend", 103),
        add(&mut s, "withdraw", 104),
        add(&mut s, "spend", 105),
        add(&mut s, "leave", 106),
    );
    let (ba, bo, bw1, bs1, bw2, bs2) = (
        add(&mut s, "arrive", 200),
        add(&mut s, "open", 201),
        add(&mut s, "withdraw", 202),
        add(&mut s, "spend", 203),
        add(&mut s, "withdraw", 204),
        add(&mut s, "spend", 205),
    );
    let site = |kind: &str, term: bool, name: &str| {
        let p = al.primitive(k(kind));
        if term {
            p.terminal_index(name)
        } else {
            p.initial_index(name)
        }
        .expect("site")
    };
    let link = |s: &mut Struct, a, ak: &str, asite: &str, b, bk: &str, bsite: &str| {
        s.connect(a, site(ak, true, asite), b, site(bk, false, bsite))
            .expect("valid process")
    };
    // Jim
    link(&mut s, ja, "arrive", "person", jw1, "withdraw", "person");
    link(&mut s, jo, "open", "account", jw1, "withdraw", "account");
    link(&mut s, jw1, "withdraw", "person", js1, "spend", "person");
    link(&mut s, jw1, "withdraw", "money", js1, "spend", "money");
    link(&mut s, js1, "spend", "person", jw2, "withdraw", "person");
    link(&mut s, jw2, "withdraw", "person", js2, "spend", "person");
    link(&mut s, jw2, "withdraw", "money", js2, "spend", "money");
    link(&mut s, js2, "spend", "person", jl, "leave", "person");
    // Bob
    link(&mut s, ba, "arrive", "person", bw1, "withdraw", "person");
    link(&mut s, bo, "open", "account", bw1, "withdraw", "account");
    link(&mut s, bw1, "withdraw", "person", bs1, "spend", "person");
    link(&mut s, bw1, "withdraw", "money", bs1, "spend", "money");
    link(&mut s, bs1, "spend", "person", bw2, "withdraw", "person");
    link(&mut s, bw2, "withdraw", "person", bs2, "spend", "person");
    link(&mut s, bw2, "withdraw", "money", bs2, "spend", "money");
    // Jim's account serves Bob's second withdrawal; Bob's account serves Jim's.
    link(&mut s, jw1, "withdraw", "account", bw2, "withdraw", "account");
    link(&mut s, bw1, "withdraw", "account", jw2, "withdraw", "account");
    s
}

/// A large synthetic observation for benchmarks: `people` persons in households of 8, each making
/// `rounds` withdraw-and-spend rounds; in even rounds a person draws on their own account, in odd
/// rounds on the next household member's. About `people · (3 + 2·rounds)` primitives.
pub fn large_observation(setting: &Setting, people: usize, rounds: usize) -> Struct {
    let al = setting.alphabet().clone();
    let k = |n: &str| al.kind(n).expect("bank primitive");
    let (arrive, open, withdraw, spend, leave) = (k("arrive"), k("open"), k("withdraw"), k("spend"), k("leave"));
    let mut s = Struct::with_capacity(al.clone(), people * (3 + 2 * rounds), people * (4 + 4 * rounds));
    let mut last_person: Vec<(u32, usize)> = Vec::with_capacity(people);
    let mut last_account: Vec<(u32, usize)> = Vec::with_capacity(people);
    for _ in 0..people {
        last_person.push((s.add_primitive(arrive).expect("kind"), 0));
        last_account.push((s.add_primitive(open).expect("kind"), 0));
    }
    // site indices: withdraw person 0 / account 1 (initials), person 0 / account 1 / money 2
    // (terminals); spend person 0 / money 1 (initials), person 0 (terminal).
    for r in 0..rounds {
        #[allow(clippy::needless_range_loop)]
        for p in 0..people {
            let acct = if r % 2 == 0 {
                p
            } else {
                (p / 8) * 8 + (p % 8 + 1) % 8.min(people - (p / 8) * 8)
            };
            let w = s.add_primitive(withdraw).expect("kind");
            let (lp, lps) = last_person[p];
            s.connect(lp, lps, w, 0).expect("person flows");
            let (la, las) = last_account[acct];
            s.connect(la, las, w, 1).expect("account flows");
            let sp = s.add_primitive(spend).expect("kind");
            s.connect(w, 0, sp, 0).expect("person flows");
            s.connect(w, 2, sp, 1).expect("money flows");
            last_person[p] = (sp, 0);
            last_account[acct] = (w, 1);
        }
    }
    for &(lp, lps) in last_person.iter() {
        let l = s.add_primitive(leave).expect("kind");
        s.connect(lp, lps, l, 0).expect("person leaves");
    }
    s
}
