//! What one function stores into its variables (locals and their parts), as the tile-count
//! rule and the typestate's copy loops read it: the data only. `roles::stores` builds it; the
//! thread model, which both rules hold, keeps one per function.

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::value::Value;

/// A variable: a local (`mir.alloca`) or a part of one, by its path of fields.
pub(crate) type Place = (Value, Vec<u32>);

/// What one function stores into its variables: built once per function and shared by every
/// reader (the tile-count rule and the typestate's copy loops both read the kernel's).
pub(crate) struct StoreTable {
    pub of: FxHashMap<Place, Vec<Value>>,
    /// The block of each store, beside `of`.
    pub blocks: FxHashMap<Place, Vec<usize>>,
    /// Places some store to an enclosing or an inner place also writes (a whole struct over its
    /// field): their own stores are not all their values.
    pub overlapped: FxHashSet<Place>,
    pub params: Vec<Value>,
}
