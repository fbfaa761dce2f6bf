//! The indexed verifier and the oracle agree: on thousands of generated scopes (proptest,
//! with shrinking), both reach the same verdict (same rejections) and the same facts. A scope
//! the guard skips must be one the oracle accepts. The kernels are drawn from
//! `plugin::harness::random_kernel` (the same generator the patched-versus-pristine pliron comparison,
//! `regress/tests/carried_pliron.rs`, draws its fixed corpus from).

use plugin::{
    harness::random_kernel::{blocks, build},
    scope::scopes_of_module,
    verify::{ScopeStatus, analyze_scope},
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn indexed_verifier_and_oracle_agree(specs in blocks()) {
        let mut ctx = plugin::new_context();
        let module = build(&mut ctx, &specs);
        for scope in scopes_of_module(&ctx, module) {
            let indexed = analyze_scope(&ctx, &scope);
            let oracle = plugin::harness::oracle::analyze_scope(&ctx, &scope);
            if indexed.report.status == ScopeStatus::Skipped {
                prop_assert!(oracle.rejections.is_empty(), "skipped scope rejected by the oracle");
            } else {
                prop_assert_eq!(&indexed.rejections, &oracle.rejections);
                prop_assert_eq!(&indexed.facts, &oracle.facts);
            }
        }
    }
}

#[test]
fn the_guard_skips_only_what_the_oracle_accepts_and_the_oracle_sees_every_scope() {
    // Same generated chain, with and without semantic operations: skipped vs verified, and
    // the oracle (no guard) computes facts even for the one the guard skips.
    for with_semantic_ops in [true, false] {
        let mut ctx = plugin::new_context();
        let module = plugin::harness::generate::pipeline_chain(&mut ctx, 40, with_semantic_ops);
        let scope = &scopes_of_module(&ctx, module)[0];
        let indexed = analyze_scope(&ctx, scope);
        let oracle = plugin::harness::oracle::analyze_scope(&ctx, scope);
        assert!(indexed.rejections.is_empty() && oracle.rejections.is_empty());
        assert!(!oracle.facts.is_empty());
        if with_semantic_ops {
            assert_eq!(indexed.report.status, ScopeStatus::Verified);
            assert_eq!(indexed.facts, oracle.facts);
        } else {
            assert_eq!(indexed.report.status, ScopeStatus::Skipped);
            assert!(indexed.facts.is_empty());
        }
    }
}
