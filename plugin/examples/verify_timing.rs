//! Times the verifier on generated scopes: `cargo run --release -p plugin --example
//! verify_timing -- BLOCKS…` prints, per size, the time of the indexed verifier with and
//! without semantic operations (the latter is the scope guard's skip).

use std::time::Instant;

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![1_000, 10_000] } else { sizes };
    for blocks in sizes {
        for with_semantic_ops in [true, false] {
            let mut ctx = plugin::new_context();
            let module = plugin::generate::pipeline_chain(&mut ctx, blocks, with_semantic_ops);
            let scopes = plugin::scope::scopes_of_module(&ctx, module);
            let start = Instant::now();
            let analysis = plugin::verify::analyze_scope(&ctx, &scopes[0]);
            let elapsed = start.elapsed();
            println!(
                "{blocks} blocks, semantic ops: {with_semantic_ops}: {:.3} s, {:?}, {} rejections, {} facts",
                elapsed.as_secs_f64(),
                analysis.report.status,
                analysis.rejections.len(),
                analysis.report.facts
            );
        }
    }
}
