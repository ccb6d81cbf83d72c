//! ELO for the ACADEMY's signatures (seed `000_…`: "the average ELO of those players"): from the
//! ranks in game records (SGF `BR`/`WR`), from an arena's ratings for engines (given as numbers),
//! and results from `RE`.
//!
//! The conversion table follows the European Go Federation's grade-to-rating convention
//! (100 points a grade):
//!
//! | rank | ELO |
//! |---|---|
//! | 20 kyu and weaker | 100 (floor: signature weights stay positive) |
//! | k kyu (1 ≤ k ≤ 20) | 2100 − 100·k (1 kyu = 2000) |
//! | d dan, amateur (1 ≤ d ≤ 9) | 2000 + 100·d (1 dan = 2100, 7 dan = 2700, 9 dan = 2900) |
//! | p dan, professional (1 ≤ p ≤ 9) | 2700 + 30·p (1p = 2730, 9p = 2970) |
//!
//! Amateur 8 and 9 dan (servers such as Tom and Tygem use them) continue the dan line. Forms read:
//! `5k`, `5 kyu`, `5級`, `3d`, `3 dan`, `3段` (amateur), `9p`, `9 pro`, `9段 pro`, `プロ`; a trailing
//! `?`, `*` or text in brackets is ignored. A rank that cannot be read gives `None` (the caller's
//! default ELO applies).

use super::library::Outcome;

/// The ELO of a rank as written in a record, if it can be read.
pub fn elo_of_rank(rank: &str) -> Option<f64> {
    let t = rank.trim().trim_end_matches(['?', '*']).trim();
    let t = t.split(['(', '[']).next().unwrap_or("").trim().to_lowercase();
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u32 = digits.parse().ok()?;
    let rest = t[digits.len()..].trim();
    let pro = rest.contains('p') || rest.contains("プロ");
    if pro && (rest.starts_with('p') || rest.contains("pro") || rest.contains("プロ") || rest.starts_with('段')) {
        return (1..=9).contains(&n).then_some(2700.0 + 30.0 * n as f64);
    }
    if rest.starts_with('k') || rest.starts_with('級') || rest.starts_with("級") {
        return (n >= 1).then(|| (2100.0 - 100.0 * n as f64).max(100.0));
    }
    if rest.starts_with('d') || rest.starts_with('段') {
        return (1..=9).contains(&n).then_some(2000.0 + 100.0 * n as f64);
    }
    None
}

/// The ELO of an engine from an arena's rating (`ets arena`: Elo-scale, relative to the anchor
/// engine at 0): the anchor's ELO plus the rating, with the table's floor of 100. The anchor's ELO
/// is known or read from its rank (e.g. GNU Go at level 10 plays about 5 kyu: 1600).
pub fn elo_of_arena(rating: f64, anchor_elo: f64) -> f64 {
    (anchor_elo + rating).max(100.0)
}

/// The result of an SGF `RE` value for the first player (black): `B+…` a win, `W+…` a loss,
/// `0`, `Draw`, `Jigo` a draw; `Void`, `?` or anything else `None`.
pub fn outcome_of_result(re: &str) -> Option<Outcome> {
    let t = re.trim().to_ascii_lowercase();
    if t.starts_with("b+") {
        Some(Outcome::Win)
    } else if t.starts_with("w+") {
        Some(Outcome::Loss)
    } else if t == "0" || t == "draw" || t == "jigo" || t == "d" {
        Some(Outcome::Draw)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_take_the_arena_rating_above_the_anchor() {
        // the anchor plays 5 kyu (2100 − 500 = 1600); an engine rated +150 against it is 1750
        let anchor = elo_of_rank("5k").unwrap();
        assert_eq!(anchor, 1600.0);
        assert_eq!(elo_of_arena(150.0, anchor), 1750.0);
        assert_eq!(elo_of_arena(-320.5, anchor), 1279.5);
        assert_eq!(elo_of_arena(0.0, anchor), anchor);
        // the floor
        assert_eq!(elo_of_arena(-2000.0, anchor), 100.0);
    }

    #[test]
    fn the_table_hand_computed() {
        assert_eq!(elo_of_rank("1k"), Some(2000.0));
        assert_eq!(elo_of_rank("5 kyu"), Some(1600.0));
        assert_eq!(elo_of_rank("20k"), Some(100.0));
        assert_eq!(elo_of_rank("25k"), Some(100.0));
        assert_eq!(elo_of_rank("1d"), Some(2100.0));
        assert_eq!(elo_of_rank("7 dan"), Some(2700.0));
        assert_eq!(elo_of_rank("9d"), Some(2900.0));
        assert_eq!(elo_of_rank("3段"), Some(2300.0));
        assert_eq!(elo_of_rank("1p"), Some(2730.0));
        assert_eq!(elo_of_rank("9p"), Some(2970.0));
        assert_eq!(elo_of_rank("9 pro"), Some(2970.0));
        assert_eq!(elo_of_rank("2k?"), Some(1900.0));
        assert_eq!(elo_of_rank("4d*"), Some(2400.0));
        assert_eq!(elo_of_rank("10d"), None);
        assert_eq!(elo_of_rank("strong"), None);
        assert_eq!(elo_of_rank(""), None);
    }

    #[test]
    fn results_from_re() {
        assert_eq!(outcome_of_result("B+R"), Some(Outcome::Win));
        assert_eq!(outcome_of_result("W+3.5"), Some(Outcome::Loss));
        assert_eq!(outcome_of_result("0"), Some(Outcome::Draw));
        assert_eq!(outcome_of_result("Jigo"), Some(Outcome::Draw));
        assert_eq!(outcome_of_result("Void"), None);
        assert_eq!(outcome_of_result("?"), None);
    }
}
