//! The typestate's paths: a block's in-state is a short list of them, each a set of assumed guard
//! outcomes with the typestates its states may be in (see the parent module).

use pliron::value::Value;

use super::super::protocol::Typestate;

/// More paths than this at one block are joined into one (no guard assumed).
const MAX_PATHS: usize = 8;

/// Assumed outcomes of guards: (condition, outcome), each condition once, in no set order.
type Guards = Vec<(Value, bool)>;

/// One path into a block: what it assumes and each state's typestate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Path {
    pub guards: Guards,
    pub row: Vec<Typestate>,
}

/// Adds `incoming` to a block's paths; true when that changed them.
pub(super) fn merge_path(paths: &mut Vec<Path>, incoming: Path) -> bool {
    let same_guards = |p: &Path| {
        p.guards.len() == incoming.guards.len() && p.guards.iter().all(|g| incoming.guards.contains(g))
    };
    if let Some(same) = paths.iter_mut().find(|p| same_guards(p)) {
        let mut changed = false;
        for (into, from) in same.row.iter_mut().zip(&incoming.row) {
            changed |= into.join(*from);
        }
        return changed;
    }
    // A path assuming less that already covers this one's typestates makes it redundant.
    let covered = paths.iter().any(|p| {
        p.guards.iter().all(|g| incoming.guards.contains(g))
            && p.row.iter().zip(&incoming.row).all(|(have, new)| have.covers(new))
    });
    if covered {
        return false;
    }
    paths.push(incoming);
    if paths.len() > MAX_PATHS {
        let mut row = paths[0].row.clone();
        for path in &paths[1..] {
            for (into, from) in row.iter_mut().zip(&path.row) {
                into.join(*from);
            }
        }
        *paths = vec![Path { guards: Vec::new(), row }];
    }
    true
}
