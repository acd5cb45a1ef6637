//! A validated configuration in the protocol's form: strings interned,
//! tools indexed, templates turned into parentless proposals, and the
//! invariant checkers' context.

use super::model_config::ModelConfig;
use crate::invariants::Context;
use crate::protocol::{Proposal, Protocol, Symbols, Tool};

impl ModelConfig {
    /// Interns every string and builds the protocol and invariant context.
    pub fn compile(&self) -> Compiled {
        // Validation bounds tools and templates far below the symbol
        // table's capacity, so interning cannot overflow here.
        let mut symbols = Symbols::new();
        let tools: Vec<Tool> = self
            .tools
            .iter()
            .map(|t| Tool {
                name: symbols.intern(&t.name),
                irreversible: t.irreversible,
            })
            .collect();
        let templates = self
            .templates
            .iter()
            .map(|t| {
                t.record
                    .to_proposal(&mut symbols)
                    .expect("validation bounds templates far below the symbol table's capacity")
            })
            .collect();
        Compiled {
            invariant_context: Context::new(&tools, self.clock, &self.variant),
            protocol: Protocol::new(tools, self.clock, self.variant),
            symbols,
            templates,
        }
    }
}

/// What a run needs from a configuration. `symbols` grows when a trace
/// names strings the configuration does not.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub symbols: Symbols,
    pub protocol: Protocol,
    /// One proposal per template, in template order, with no parents and
    /// the template's owner (`None`: the staging agent).
    pub templates: Vec<Proposal>,
    pub invariant_context: Context,
}

impl Compiled {
    /// The index of the tool called `name`.
    pub fn tool_index(&self, name: &str) -> Option<u8> {
        let sym = self.symbols.lookup(name)?;
        self.protocol
            .tools()
            .iter()
            .position(|t| t.name == sym)
            .and_then(|i| u8::try_from(i).ok())
    }

    /// The name of tool `index`, or `#index` for an unknown one.
    pub fn tool_name(&self, index: u8) -> String {
        self.protocol.tools().get(index as usize).map_or_else(
            || format!("#{index}"),
            |t| self.symbols.name(t.name).to_owned(),
        )
    }
}
