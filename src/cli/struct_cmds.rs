//! `ets struct`: the engine's operations on structs (§3.3.2, Fig. 3.4) for any domain —
//! assembly on common primitives, relabeling, structural identity and the canonical labelling.

use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use ets::ets::json::{self, Ident, Names};
use ets::ets::{Alphabet, Struct, assemble, canonical_order, labelled_eq, relabel, structurally_identical};

use super::dsl_cmds::{read, setting};

#[derive(Args)]
pub struct StructArgs {
    #[command(subcommand)]
    pub cmd: StructCmd,
}

#[derive(Args)]
pub struct Common {
    /// Class setting files whose alphabet the structs are over (default: the first file's own).
    #[arg(long, num_args = 1..)]
    pub setting: Vec<PathBuf>,
}

#[derive(Subcommand)]
pub enum StructCmd {
    /// Assemble two structs on their common primitives (equal ids or names); prints the union.
    Assemble {
        /// The first struct.
        a: PathBuf,
        /// The second struct.
        b: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Rename primitives: `--map` gives new ids or names for some (the others keep theirs).
    Relabel {
        /// The struct.
        file: PathBuf,
        /// A JSON object from old to new identity: `{"102": 202, "jim": "bob"}` (a key of digits is
        /// an id, any other key a name).
        #[arg(long)]
        map: Option<PathBuf>,
        /// Add this to every numeric id (names are kept).
        #[arg(long)]
        offset: Option<u64>,
        #[command(flatten)]
        common: Common,
    },
    /// Whether two structs are structurally identical (a relabeling maps one onto the other):
    /// exit 0 if so, 1 if not, 2 on an error.
    Same {
        /// The first struct.
        a: PathBuf,
        /// The second struct.
        b: PathBuf,
        /// Equal as labelled (same ids, kinds and processes) instead.
        #[arg(long)]
        labelled: bool,
        #[command(flatten)]
        common: Common,
    },
    /// The struct relabelled canonically (ids 1, 2, … in canonical order): structurally
    /// identical structs print the same text.
    Canonical {
        /// The struct.
        file: PathBuf,
        #[command(flatten)]
        common: Common,
    },
}

/// The alphabet the structs are over: the setting's, or (`None`) the first file's own.
fn alphabet(common: &Common) -> miette::Result<Option<Arc<Alphabet>>> {
    if common.setting.is_empty() {
        return Ok(None);
    }
    Ok(Some(setting(&common.setting)?.alphabet().clone()))
}

fn load(p: &Path, al: Option<Arc<Alphabet>>) -> miette::Result<(Struct, Names)> {
    let text = read(p)?;
    if json::struct_level(&text).map_err(|e| miette::miette!("{}: {e}", p.display()))? != 0 {
        return Err(miette::miette!(
            "{}: a level-n struct; `ets struct` works on level-0 structs (primitives and processes)",
            p.display()
        ));
    }
    json::read_struct_named(&text, al).map_err(|e| miette::miette!("{}: {e}", p.display()))
}

/// Two structs over one alphabet (the second read against the first's, in any order).
fn pair(a: &Path, b: &Path, common: &Common) -> miette::Result<((Struct, Names), (Struct, Names))> {
    let al = alphabet(common)?;
    let x = load(a, al)?;
    let y = load(b, Some(x.0.alphabet().clone()))?;
    Ok((x, y))
}

pub fn run(a: StructArgs) -> miette::Result<ExitCode> {
    match a.cmd {
        StructCmd::Assemble { a, b, common } => {
            let ((x, mut nx), (y, ny)) = pair(&a, &b, &common)?;
            for (id, n) in ny {
                if let Some(m) = nx.get(&id)
                    && *m != n
                {
                    return Err(miette::miette!("the names `{m}` and `{n}` have the same id {id}"));
                }
                nx.insert(id, n);
            }
            let s = assemble(&x, &y).map_err(|e| miette::miette!("cannot assemble: {e}"))?;
            println!("{}", json::write_struct_named(&s, &nx));
            Ok(ExitCode::SUCCESS)
        }
        StructCmd::Relabel {
            file,
            map,
            offset,
            common,
        } => {
            let (s, names) = load(&file, alphabet(&common)?)?;
            let mut to: BTreeMap<u64, Ident> = BTreeMap::new();
            if let Some(m) = &map {
                let text = read(m)?;
                let obj: BTreeMap<String, Ident> = serde_json::from_str(&text).map_err(|e| {
                    miette::miette!("{}: expected a JSON object from old to new identity: {e}", m.display())
                })?;
                for (k, v) in obj {
                    let old = match k.parse::<u64>() {
                        Ok(id) => Ident::Id(id),
                        Err(_) => Ident::Name(k),
                    };
                    if s.node_of_id(old.id()).is_none() || matches!(&old, Ident::Id(i) if names.contains_key(i)) {
                        return Err(miette::miette!("{}: the struct has no primitive {old}", m.display()));
                    }
                    to.insert(old.id(), v);
                }
            }
            if map.is_none() && offset.is_none() {
                return Err(miette::miette!("give --map, --offset or both"));
            }
            let off = offset.unwrap_or(0);
            let new_ident = |id: u64| -> Ident {
                match to.get(&id) {
                    Some(i) => i.clone(),
                    None if names.contains_key(&id) => Ident::Name(names[&id].clone()),
                    None => Ident::Id(id.wrapping_add(off)),
                }
            };
            let out = relabel(&s, |id| new_ident(id).id())
                .map_err(|e| miette::miette!("not a relabeling (it must keep ids apart): {e}"))?;
            let mut out_names = Names::new();
            for n in s.nodes() {
                if let Ident::Name(x) = new_ident(s.primitive(n).id) {
                    out_names.insert(json::name_id(&x), x);
                }
            }
            println!("{}", json::write_struct_named(&out, &out_names));
            Ok(ExitCode::SUCCESS)
        }
        StructCmd::Same { a, b, labelled, common } => {
            let ((x, _), (y, _)) = match pair(&a, &b, &common) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("{e:?}");
                    return Ok(ExitCode::from(2));
                }
            };
            let same = if labelled {
                labelled_eq(&x, &y)
            } else {
                structurally_identical(&x, &y)
            };
            let what = if labelled {
                "equal as labelled"
            } else {
                "structurally identical"
            };
            println!("{}", if same { what.to_string() } else { format!("not {what}") });
            Ok(if same { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        StructCmd::Canonical { file, common } => {
            let (s, _) = load(&file, alphabet(&common)?)?;
            let order = canonical_order(&s);
            let mut rank = vec![0u64; s.len()];
            for (i, &n) in order.iter().enumerate() {
                rank[n as usize] = i as u64 + 1;
            }
            let out = relabel(&s, |id| rank[s.node_of_id(id).expect("a primitive of s") as usize])
                .map_err(|e| miette::miette!("{e}"))?;
            println!("{}", json::write_struct(&out));
            Ok(ExitCode::SUCCESS)
        }
    }
}
