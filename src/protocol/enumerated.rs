//! [`enumerated!`]: a fieldless enum declared together with `ALL`, the
//! array of every variant in declaration order, so that the list cannot
//! miss a variant. Whatever counts or names the protocol's outcomes from
//! outside (branch coverage, the outcome text, the wire formats) iterates
//! `ALL` and matches exhaustively, so a new reason, result or refusal is
//! counted by construction, or is a compile error where it must be named.
//! The checker declares its own lists (invariants, companions) with it too.
//!
//! Given each variant's text (`Raw = "raw"`), it also declares `name`,
//! so an enumeration's names are written once, beside its variants.
//!
//! A variant may carry doc comments and one `#[cfg(...)]` (the test-only
//! spec changes of `Cargo.toml`'s `tutorial-*` features add variants that
//! way); the array then holds the variants the build has, and a variant's
//! discriminant is its position in it.

/// Declares `enum NAME { … }` and `NAME::ALL`; with every variant given
/// as `Variant = "text"`, also `NAME::name`, the variant's text.
macro_rules! enumerated {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($cfg:meta)])?
                $variant:ident = $text:literal
            ),* $(,)?
        }
    ) => {
        $crate::protocol::enumerated! {
            $(#[$meta])*
            $vis enum $name {
                $($(#[doc = $doc])* $(#[cfg($cfg)])? $variant,)*
            }
        }

        impl $name {
            /// The name every output and input writes.
            pub fn name(self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? $name::$variant => $text,)*
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($cfg:meta)])?
                $variant:ident
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $(#[cfg($cfg)])?
                $variant,
            )*
        }

        impl $name {
            /// Every variant, in declaration order (a variant's
            /// discriminant is its index here).
            pub const ALL: [$name; [$($(#[cfg($cfg)])? $name::$variant,)*].len()] =
                [$($(#[cfg($cfg)])? $name::$variant,)*];
        }
    };
}

pub(crate) use enumerated;

#[cfg(test)]
mod tests {
    enumerated! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Sample {
            /// The first.
            First,
            #[cfg(any())]
            Never,
            Second,
        }
    }

    enumerated! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Named {
            /// The first.
            First = "first",
            #[cfg(any())]
            Never = "never",
            Second = "second_one",
        }
    }

    #[test]
    fn named_variants_get_their_names_and_all() {
        assert_eq!(Named::ALL, [Named::First, Named::Second]);
        assert_eq!(Named::First.name(), "first");
        assert_eq!(Named::Second.name(), "second_one");
    }

    #[test]
    fn all_lists_the_variants_the_build_has_in_order() {
        assert_eq!(Sample::ALL, [Sample::First, Sample::Second]);
        for (i, v) in Sample::ALL.into_iter().enumerate() {
            assert_eq!(v as usize, i);
        }
    }
}
