//! Primal classes, abstract primitives with typed sites, and concrete primitives.
//!
//! Implements the definitions of thesis §3.3.1 ("ETS primitives and primal classes", Figs. 3.1–3.2):
//! a *primal class* is a class of similar processes; an *abstract primitive* is an event type
//! defined by the ordered tuples of its initial and terminal sites, each site typed by a primal
//! class; a *concrete primitive* is one observed event, an instance of an abstract primitive with
//! an identity of its own (the thesis's π_{2a}, π_{2b}).
//!
//! The [`Alphabet`] holds the primal classes and abstract primitives of one domain. A primitive may
//! have no initials or no terminals (the thesis's attention primitives π6/π7, §4.3.5).

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use super::error::AlphabetError;

/// Index of a primal class in its [`Alphabet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PrimalClassId(pub u32);

/// Index of an abstract primitive in its [`Alphabet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PrimitiveKind(pub u32);

/// A primal class (§3.3.1): a class of primal processes, named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimalClass {
    /// The class's name, unique in its alphabet.
    pub name: String,
}

/// One initial or terminal site of an abstract primitive: a name and the primal class of the
/// process it accepts or emits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// The site's name, unique among the initials (or among the terminals) of its primitive.
    pub name: String,
    /// The primal class of the process attached at this site.
    pub class: PrimalClassId,
}

/// An abstract primitive (§3.3.1, Fig. 3.2 left): an event type with ordered, named, typed
/// initial and terminal sites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbstractPrimitive {
    /// The primitive's name (e.g. `pi1`, `withdraw`).
    pub name: String,
    /// Initial sites, in order: the processes the event consumes.
    pub initials: Vec<Site>,
    /// Terminal sites, in order: the processes the event emits.
    pub terminals: Vec<Site>,
}

impl AbstractPrimitive {
    /// The index of the initial site called `name`.
    pub fn initial_index(&self, name: &str) -> Option<usize> {
        self.initials.iter().position(|s| s.name == name)
    }
    /// The index of the terminal site called `name`.
    pub fn terminal_index(&self, name: &str) -> Option<usize> {
        self.terminals.iter().position(|s| s.name == name)
    }
}

/// The most abstract primitives an alphabet holds (a struct stores each primitive's kind in two
/// bytes).
pub const MAX_PRIMITIVES: usize = 1 << 16;
/// The most initial (and the most terminal) sites a primitive has (a struct stores a process's
/// site in one byte).
pub const MAX_SITES: usize = 256;

/// The primal classes and abstract primitives of one domain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "AlphabetRepr", into = "AlphabetRepr")]
pub struct Alphabet {
    primal: Vec<PrimalClass>,
    primitives: Vec<AbstractPrimitive>,
    primal_by_name: HashMap<String, PrimalClassId>,
    primitive_by_name: HashMap<String, PrimitiveKind>,
}

#[derive(Serialize, Deserialize)]
struct AlphabetRepr {
    primal_classes: Vec<String>,
    primitives: Vec<PrimitiveRepr>,
}

#[derive(Serialize, Deserialize)]
struct PrimitiveRepr {
    name: String,
    initials: Vec<(String, String)>,
    terminals: Vec<(String, String)>,
}

impl From<Alphabet> for AlphabetRepr {
    fn from(a: Alphabet) -> Self {
        let site = |s: &Site| (s.name.clone(), a.primal[s.class.0 as usize].name.clone());
        AlphabetRepr {
            primal_classes: a.primal.iter().map(|p| p.name.clone()).collect(),
            primitives: a
                .primitives
                .iter()
                .map(|p| PrimitiveRepr {
                    name: p.name.clone(),
                    initials: p.initials.iter().map(site).collect(),
                    terminals: p.terminals.iter().map(site).collect(),
                })
                .collect(),
        }
    }
}

impl TryFrom<AlphabetRepr> for Alphabet {
    type Error = AlphabetError;
    fn try_from(r: AlphabetRepr) -> Result<Self, AlphabetError> {
        let mut a = Alphabet::default();
        for p in &r.primal_classes {
            a.add_primal_class(p)?;
        }
        for p in r.primitives {
            let conv = |v: Vec<(String, String)>| -> Result<Vec<(String, PrimalClassId)>, AlphabetError> {
                v.into_iter()
                    .map(|(n, c)| {
                        a.primal_class(&c)
                            .map(|id| (n, id))
                            .ok_or(AlphabetError::UnknownPrimalClass(c))
                    })
                    .collect()
            };
            let ini = conv(p.initials)?;
            let ter = conv(p.terminals)?;
            a.add_primitive(&p.name, &ini, &ter)?;
        }
        Ok(a)
    }
}

impl Alphabet {
    /// An empty alphabet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a primal class.
    pub fn add_primal_class(&mut self, name: &str) -> Result<PrimalClassId, AlphabetError> {
        if self.primal_by_name.contains_key(name) {
            return Err(AlphabetError::DuplicatePrimalClass(name.to_string()));
        }
        let id = PrimalClassId(self.primal.len() as u32);
        self.primal.push(PrimalClass { name: name.to_string() });
        self.primal_by_name.insert(name.to_string(), id);
        Ok(id)
    }

    /// Declares an abstract primitive with the given `(site name, primal class)` initials and
    /// terminals.
    pub fn add_primitive(
        &mut self,
        name: &str,
        initials: &[(String, PrimalClassId)],
        terminals: &[(String, PrimalClassId)],
    ) -> Result<PrimitiveKind, AlphabetError> {
        if self.primitive_by_name.contains_key(name) {
            return Err(AlphabetError::DuplicatePrimitive(name.to_string()));
        }
        if self.primitives.len() >= MAX_PRIMITIVES {
            return Err(AlphabetError::TooManyPrimitives(MAX_PRIMITIVES));
        }
        for (side, sites) in [("initial", initials), ("terminal", terminals)] {
            if sites.len() > MAX_SITES {
                return Err(AlphabetError::TooManySites {
                    primitive: name.to_string(),
                    side,
                    count: sites.len(),
                    max: MAX_SITES,
                });
            }
        }
        for sites in [initials, terminals] {
            for (i, (n, c)) in sites.iter().enumerate() {
                if c.0 as usize >= self.primal.len() {
                    return Err(AlphabetError::UnknownPrimalClassId(c.0));
                }
                if sites[..i].iter().any(|(m, _)| m == n) {
                    return Err(AlphabetError::DuplicateSite {
                        primitive: name.to_string(),
                        site: n.clone(),
                    });
                }
            }
        }
        let mk = |v: &[(String, PrimalClassId)]| {
            v.iter()
                .map(|(n, c)| Site {
                    name: n.clone(),
                    class: *c,
                })
                .collect()
        };
        let id = PrimitiveKind(self.primitives.len() as u32);
        self.primitives.push(AbstractPrimitive {
            name: name.to_string(),
            initials: mk(initials),
            terminals: mk(terminals),
        });
        self.primitive_by_name.insert(name.to_string(), id);
        Ok(id)
    }

    /// Convenience: declares a primitive whose sites all belong to one primal class.
    pub fn add_uniform_primitive(
        &mut self,
        name: &str,
        class: PrimalClassId,
        initials: &[&str],
        terminals: &[&str],
    ) -> Result<PrimitiveKind, AlphabetError> {
        let i: Vec<_> = initials.iter().map(|n| (n.to_string(), class)).collect();
        let t: Vec<_> = terminals.iter().map(|n| (n.to_string(), class)).collect();
        self.add_primitive(name, &i, &t)
    }

    /// Looks a primal class up by name.
    pub fn primal_class(&self, name: &str) -> Option<PrimalClassId> {
        self.primal_by_name.get(name).copied()
    }
    /// Looks an abstract primitive up by name.
    pub fn kind(&self, name: &str) -> Option<PrimitiveKind> {
        self.primitive_by_name.get(name).copied()
    }
    /// The abstract primitive of a kind.
    pub fn primitive(&self, k: PrimitiveKind) -> &AbstractPrimitive {
        &self.primitives[k.0 as usize]
    }
    /// The primal class of an id.
    pub fn primal(&self, c: PrimalClassId) -> &PrimalClass {
        &self.primal[c.0 as usize]
    }
    /// All abstract primitives, in declaration order.
    pub fn primitives(&self) -> &[AbstractPrimitive] {
        &self.primitives
    }
    /// All primal classes, in declaration order.
    pub fn primal_classes(&self) -> &[PrimalClass] {
        &self.primal
    }
    /// Number of abstract primitives.
    pub fn len(&self) -> usize {
        self.primitives.len()
    }
    /// Whether no abstract primitive is declared.
    pub fn is_empty(&self) -> bool {
        self.primitives.is_empty()
    }
}

/// A concrete primitive (§3.3.1): one observed event, an instance of an abstract primitive with
/// its own identity `id` (unique within a struct; equal ids in two structs denote the same event,
/// which is what assembly joins on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConcretePrimitive {
    /// Its abstract primitive.
    pub kind: PrimitiveKind,
    /// Its identity.
    pub id: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alphabet_refuses_more_sites_than_a_struct_stores() {
        let mut a = Alphabet::new();
        let c = a.add_primal_class("c").unwrap();
        let names: Vec<String> = (0..=MAX_SITES).map(|i| format!("s{i}")).collect();
        let many: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
        assert!(a.add_uniform_primitive("widest", c, &many[..MAX_SITES], &[]).is_ok());
        let err = a.add_uniform_primitive("too_wide", c, &[], &many).unwrap_err();
        assert!(matches!(err, AlphabetError::TooManySites { side: "terminal", count, .. } if count == MAX_SITES + 1));
        assert!(a.kind("too_wide").is_none());
    }
}
