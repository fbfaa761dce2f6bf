//! Linear forms over a function's parameters, constants and values alike in every thread: what
//! the tile-count rule reads a loop's start, step and bound as (see the parent module).

use std::collections::BTreeMap;

/// What a linear form is made of.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Atom {
    /// The loop's induction variable.
    Iv,
    /// Parameter `n` of the helper the form is expressed in (a lift replaces it by the argument
    /// its one call passes).
    Param(usize),
    /// Parameter `n` of the kernel: the same value in every thread and in every function, so it
    /// survives a lift unchanged (a bound read through `&self` in a helper from a struct the
    /// kernel built from its `tiles` parameter).
    KernelParam(usize),
    /// The result of an argument-less call of this callee.
    Call(String),
    /// The result of a call of scope function `function` with these arguments (none of them the
    /// induction variable), when it computes its result from its arguments, the block's
    /// coordinates and fixed values read through the references it is handed
    /// (`uniform::computes_from_arguments_reading`; those references take no part, as an empty
    /// form): the same value in every thread of the block, and at every call with equal
    /// arguments (`owned_tiles(tiles)`, `source.end()`). `field`: the path of fields read out
    /// of an aggregate result (`TileJob::of_block(tiles).count`), empty for the whole result.
    Applied { function: usize, arguments: Vec<Linear>, field: Vec<u32> },
    /// An operation other than `+`, `−` and a product by a constant (`(tiles - b + g - 1) / g`),
    /// or a call of the standard library's integer methods (`div_ceil`, `min`), on forms without
    /// the induction variable, keyed by the operation and its result type (division and shifts
    /// follow the operands' signedness): the same pure operation on equal forms is the same
    /// value, and forms of atoms alike in every thread are alike in every thread.
    Pure { operation: String, operands: Vec<Linear> },
    /// What a load reads from a place the scope writes once, outside every loop, with a value
    /// alike in every thread (`cx.b` of a context struct the kernel built): every read of the
    /// place, in whichever function (through references to it), is that one value. The local is
    /// named by its `mir.alloca`'s operation number; the kernel's own locals only, since a
    /// helper's local is a new one at every call.
    Place { local: usize, path: Vec<u32> },
    /// [`Atom::Place`] for a local of a helper, read in that helper: one variable per call, so
    /// two forms holding it compare only where the helper runs once per thread (the lift
    /// reached the kernel through calls made once, on no cycle); it counts as a parameter.
    HelperPlace { local: usize, path: Vec<u32> },
    /// What a load reads from a place of the kernel's own locals stored on several paths, no
    /// store on a cycle (`let n = if b < tiles { … } else { 0 }`), with a value alike in every
    /// thread (no store on a divergent path: the thread model's uniform): the stores that can
    /// reach the load, by operation number. Two loads reached by the same stores read the same
    /// value, since every thread ran the same of them.
    Chosen { local: usize, path: Vec<u32>, stores: Vec<usize> },
    /// The result of operation `operation` (by number) that the forms cannot read further (a
    /// helper's count read through its `&self`), computed on no cycle of its function and alike
    /// in every thread: one value per call of that function, so two loops reading it compare.
    /// `in_helper`: the function is a helper, and the atom counts as a parameter (see
    /// [`Atom::HelperPlace`]).
    Result { operation: usize, in_helper: bool },
}

/// `Σ coefficient · atom + constant`.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Linear {
    pub terms: BTreeMap<Atom, i64>,
    pub constant: i64,
}

impl Linear {
    pub(super) fn atom(atom: Atom) -> Linear {
        Linear { terms: BTreeMap::from([(atom, 1)]), constant: 0 }
    }

    pub(super) fn constant(value: i64) -> Linear {
        Linear { terms: BTreeMap::new(), constant: value }
    }

    pub(super) fn plus(mut self, other: &Linear, sign: i64) -> Linear {
        for (atom, k) in &other.terms {
            *self.terms.entry(atom.clone()).or_default() += sign * k;
        }
        self.terms.retain(|_, k| *k != 0);
        self.constant += sign * other.constant;
        self
    }

    pub(super) fn scaled(mut self, factor: i64) -> Linear {
        for k in self.terms.values_mut() {
            *k *= factor;
        }
        self.terms.retain(|_, k| *k != 0);
        self.constant *= factor;
        self
    }

    /// Whether a parameter of the function takes part, at any depth (a helper's `div_ceil` of one).
    pub(super) fn mentions_parameters(&self) -> bool {
        self.terms.keys().any(|atom| match atom {
            Atom::Param(_) | Atom::HelperPlace { .. } => true,
            Atom::Result { in_helper, .. } => *in_helper,
            Atom::Applied { arguments: operands, .. } | Atom::Pure { operands, .. } => {
                operands.iter().any(Linear::mentions_parameters)
            }
            Atom::Iv | Atom::KernelParam(_) | Atom::Call(_) | Atom::Place { .. } | Atom::Chosen { .. } => {
                false
            }
        })
    }

    pub(super) fn iv(&self) -> i64 {
        self.terms.get(&Atom::Iv).copied().unwrap_or(0)
    }

    /// The form with the function's parameters replaced by `arguments` (a helper's loop in its
    /// caller's terms); `None` if it holds the induction variable or a parameter whose
    /// argument is not read.
    pub(super) fn substituted(&self, arguments: &[Option<Linear>]) -> Option<Linear> {
        let each = |forms: &[Linear]| -> Option<Vec<Linear>> {
            forms.iter().map(|form| form.substituted(arguments)).collect()
        };
        let mut result = Linear::constant(self.constant);
        for (atom, k) in &self.terms {
            let replaced = match atom {
                Atom::Iv => return None,
                Atom::Param(n) => arguments.get(*n)?.clone()?,
                Atom::KernelParam(_)
                | Atom::Call(_)
                | Atom::Place { .. }
                | Atom::HelperPlace { .. }
                | Atom::Result { .. }
                | Atom::Chosen { .. } => Linear::atom(atom.clone()),
                Atom::Applied { function, arguments: inner, field } => Linear::atom(Atom::Applied {
                    function: *function,
                    arguments: each(inner)?,
                    field: field.clone(),
                }),
                Atom::Pure { operation, operands } => {
                    Linear::atom(Atom::Pure { operation: operation.clone(), operands: each(operands)? })
                }
            };
            result = result.plus(&replaced.scaled(*k), 1);
        }
        Some(result)
    }

    /// The form with the induction variable's sign changed (`u = −iv`): a count-down read as
    /// a count-up.
    pub(super) fn with_iv_negated(mut self) -> Linear {
        if let Some(k) = self.terms.get_mut(&Atom::Iv) {
            *k = -*k;
        }
        self
    }

    /// `k` with `self == k · step`, if there is one.
    pub(super) fn multiple_of(&self, step: &Linear) -> Option<i64> {
        let k = match step.terms.iter().next() {
            Some((atom, unit)) => self.terms.get(atom).copied().unwrap_or(0) / unit,
            None if step.constant != 0 => self.constant / step.constant,
            None => return None,
        };
        (k != 0 && *self == step.clone().scaled(k)).then_some(k)
    }
}
