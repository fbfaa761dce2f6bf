//! Criterion benchmark of the semantic verifier on generated scopes: absolute times per
//! family and block count (the timing regression, `regress/tests/verifier_timing.rs`, checks
//! only how they grow). Run with `cargo bench -p regress --bench verifier`; the HTML report is
//! `target/criterion/report/index.html`.
//!
//! Each benchmark verifies one scope made by `plugin::harness::generate` (same seed as the timing
//! regression), so the figures here and there are of the same scopes. Throughput is in
//! blocks, so criterion also reports blocks per second.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use plugin::harness::generate::{Family, generate};
use plugin::verify::verify_scope;

/// The shape's seed: the timing regression's.
const SEED: u64 = 0x7E57_5CA1E;
const SIZES: [usize; 4] = [200, 800, 3200, 12_800];

fn verifier(c: &mut Criterion) {
    for family in Family::ALL {
        let mut group = c.benchmark_group(format!("verify/{}", family.name()));
        group.sample_size(20);
        for blocks in SIZES {
            let mut ctx = plugin::new_context();
            let generated = generate(&mut ctx, family, blocks, SEED)
                .unwrap_or_else(|error| panic!("generating {} at {blocks} blocks: {error}", family.name()));
            group.throughput(Throughput::Elements(generated.blocks as u64));
            group.bench_with_input(BenchmarkId::from_parameter(blocks), &generated, |b, generated| {
                b.iter(|| {
                    verify_scope(&ctx, &generated.scope).unwrap_or_else(|rejections| {
                        panic!("the generated {} scope was rejected: {}", family.name(), rejections[0])
                    })
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, verifier);
criterion_main!(benches);
