//! Interned strings: entity, attribute, value, source and tool names are
//! compared for equality only, so the store holds small integers and the
//! [`Symbols`] table, kept outside the store, turns them back into text.

use std::collections::HashMap;

/// An interned string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u16);

/// The table of interned strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols {
    names: Vec<String>,
    index: HashMap<String, Sym>,
}

impl Symbols {
    pub fn new() -> Self {
        Self::default()
    }

    /// The symbol for `name`, interning it if new.
    ///
    /// # Panics
    /// Past 65,536 distinct strings, which no configuration comes near
    /// (configuration loading bounds the number of strings it interns).
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.index.get(name) {
            return sym;
        }
        let sym = Sym(u16::try_from(self.names.len()).expect("fewer than 65536 symbols"));
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), sym);
        sym
    }

    /// Forgets every symbol from the `len`th on (those interned since the
    /// table held `len`): nothing may name them any more.
    pub fn truncate(&mut self, len: usize) {
        for name in self.names.drain(len.min(self.names.len())..) {
            self.index.remove(&name);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Sym> {
        self.index.get(name).copied()
    }

    pub fn name(&self, sym: Sym) -> &str {
        self.names.get(sym.0 as usize).map_or("?", String::as_str)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable() {
        let mut s = Symbols::new();
        let a = s.intern("order841");
        let b = s.intern("refund_eligible");
        assert_ne!(a, b);
        assert_eq!(s.intern("order841"), a);
        assert_eq!(s.name(b), "refund_eligible");
        assert_eq!(s.lookup("nope"), None);
        assert_eq!(s.len(), 2);
    }
}
