//! Generated Rust kernel source for the end-to-end timing (`cargo xtask timing`): a kernels
//! crate with one kernel, `timing_story`, whose body runs the pipeline story of
//! `plugin::harness::generate`'s story family in real device-API calls, at a chosen size, so that the
//! whole path (rustc's front end, the plugin's MIR import and verifier, LLVM's NVPTX back end,
//! ptxas) can be timed against kernel size.
//!
//! The kernel is warp-specialised like `kernels/src/pipeline_sum.rs`: thread 0 produces
//! (acquire, expect-tx, bulk copy, advance, per round; the tail after the last round), warps
//! 1.. consume (wait, read the stage, release, advance). Between the steps go seeded padding
//! statements of `u32` arithmetic with a branch each; some rounds are loops. The crate is
//! named `kernels` and takes the device API from `kernels/src/device/` by path, so its calls
//! have the paths the driver recognises.
//!
//! The size is given in MIR basic blocks, estimated from what the source holds (each call,
//! each padding branch and each loop adds a known number of blocks); the driver's verify
//! report, where there is one, gives the imported count.

use std::fmt::Write as _;
use std::path::Path;

/// The generated kernel's entry name.
pub const ENTRY: &str = "timing_story";

/// One generated crate: its `Cargo.toml` and `src/lib.rs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSource {
    pub cargo_toml: String,
    pub lib_rs: String,
    /// MIR basic blocks the kernel should have, estimated from its statements.
    pub estimated_blocks: usize,
}

/// MIR blocks of each piece, as counted on rustc 1.99's built MIR of such code (a call ends a
/// block; an `if`/`else` adds a condition block, two arms and a join; a `while` a head, a
/// body entry and an exit).
const BLOCKS_PER_CALL: usize = 1;
const BLOCKS_PER_PAD: usize = 4;
const BLOCKS_PER_LOOP: usize = 3;
/// Calls per producer round (acquire, expect-tx, index, pointer offset, producer barrier, bulk
/// copy, advance) and per consumer round (wait, index, pointer offset, add, release, advance).
const PRODUCER_CALLS: usize = 7;
const CONSUMER_CALLS: usize = 6;
/// Blocks of the fixed frame: set-up calls and branches, the tail, the final store.
const FRAME_BLOCKS: usize = 16;

/// A padding statement: `u32` arithmetic on `acc` behind a branch.
fn pad(out: &mut String, indent: &str, rng: &mut fastrand::Rng) {
    let mask = 1 + rng.u64(..255);
    let key = rng.u64(..mask + 1) & mask;
    let mul = 3 + 2 * rng.u64(..1000);
    let add = rng.u64(..1 << 20);
    let xor = rng.u64(..1 << 30);
    let _ = writeln!(
        out,
        "{indent}if (acc & {mask}) == {key} {{ acc = acc.wrapping_mul({mul}).wrapping_add({add}); }} \
         else {{ acc ^= {xor}; }}"
    );
}

/// The source of a kernels crate whose one kernel has about `blocks` MIR blocks, shaped by
/// `seed`; `device_dir` is the device API's folder (`kernels/src/device`), referred to by
/// absolute path. Below one round's worth of blocks (`blocks` = 0, say) the kernel is the
/// frame alone: the baseline that the end-to-end timing subtracts.
pub fn story_kernel(blocks: usize, seed: u64, device_dir: &Path) -> KernelSource {
    // fastrand's wyrand, seeded: the same kernel for the same seed.
    let mut rng = fastrand::Rng::with_seed(seed);
    let round_blocks = (PRODUCER_CALLS + CONSUMER_CALLS) * BLOCKS_PER_CALL;
    let mut budget = blocks.saturating_sub(FRAME_BLOCKS);
    let mut producer = String::new();
    let mut consumer = String::new();
    let mut estimated = FRAME_BLOCKS;
    let mut round = 0u64;
    while budget >= round_blocks {
        let looped = rng.u64(..2) == 0;
        let pads = (rng.u64(..9) as usize).min(budget.saturating_sub(round_blocks) / BLOCKS_PER_PAD);
        let this = round_blocks + pads * BLOCKS_PER_PAD + if looped { 2 * BLOCKS_PER_LOOP } else { 0 };
        estimated += this;
        budget = budget.saturating_sub(this);
        let mut slots = [0usize; 6];
        for _ in 0..pads {
            slots[rng.u64(..6) as usize] += 1;
        }
        let (head, indent, tail) = if looped {
            (
                "        let mut t = 0u32;\n        while t < tiles {\n",
                "            ",
                "            t += 1;\n        }\n",
            )
        } else {
            ("        {\n        let t = 0u32;\n", "            ", "        }\n")
        };
        producer.push_str(head);
        let _ = writeln!(producer, "{indent}pipeline.producer_acquire(&state);");
        (0..slots[0]).for_each(|_| pad(&mut producer, indent, &mut rng));
        let _ = writeln!(producer, "{indent}pipeline.producer_expect_tx(&state, TILE_BYTES);");
        (0..slots[1]).for_each(|_| pad(&mut producer, indent, &mut rng));
        let _ = writeln!(
            producer,
            "{indent}let source = input.wrapping_add(((t + {round}) * TILE_FLOATS) as usize) as *const u8;\n\
             {indent}bulk_copy_global_to_shared(smem + state.index() * TILE_BYTES, source, TILE_BYTES, \
             pipeline.producer_barrier(&state));"
        );
        (0..slots[2]).for_each(|_| pad(&mut producer, indent, &mut rng));
        let _ = writeln!(producer, "{indent}state.advance();");
        producer.push_str(tail);

        consumer.push_str(head);
        let _ = writeln!(consumer, "{indent}pipeline.consumer_wait(&state);");
        (0..slots[3]).for_each(|_| pad(&mut consumer, indent, &mut rng));
        let _ = writeln!(
            consumer,
            "{indent}let stage = ring.wrapping_add((state.index() * TILE_FLOATS) as usize);\n\
             {indent}// SAFETY: a word of a stage the full barrier says is loaded.\n\
             {indent}acc = acc.wrapping_add(unsafe {{ *stage.add(((tid + t) % TILE_FLOATS) as usize) }});"
        );
        (0..slots[4]).for_each(|_| pad(&mut consumer, indent, &mut rng));
        let _ = writeln!(consumer, "{indent}pipeline.consumer_release(&state);");
        (0..slots[5]).for_each(|_| pad(&mut consumer, indent, &mut rng));
        let _ = writeln!(consumer, "{indent}state.advance();");
        consumer.push_str(tail);
        round += 1;
    }

    let device = device_dir.join("mod.rs");
    let lib_rs = format!(
        r#"//! Generated by `regress::kernel_source` for `cargo xtask timing`: one kernel of about
//! {estimated} MIR blocks ({round} pipeline rounds), seed {seed}. Not part of the kernels.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_float_math, register_tool)]
#![register_tool(kernel_verifier)]
#![allow(dead_code, clippy::all)]

#[path = "{device}"]
pub mod device;

use device::pipeline::{{Pipeline, PipelineState, bulk_copy_global_to_shared}};
use device::{{barrier, dynamic_shared_base, dynamic_shared_window_address, thread_idx_x}};

const STAGES: u32 = 4;
const TILE_FLOATS: u32 = 1024;
const TILE_BYTES: u32 = TILE_FLOATS * 4;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {{
    // SAFETY: `trap` aborts the kernel.
    unsafe {{ core::arch::nvptx::trap() }}
}}

/// # Safety
/// `input` holds `(tiles + {round}) * 1024` floats, 16-byte aligned; `out` one word per thread.
#[kernel_verifier::unverified(reason = "generated to time the verifier: its rounds are written out, not loops the tile-count rule reads, and it declares no block size")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn {ENTRY}(input: *const f32, tiles: u32, out: *mut u32) {{
    let smem = dynamic_shared_window_address();
    let barriers = smem + STAGES * TILE_BYTES;
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {{ Pipeline::<STAGES>::init(barriers, 32) }} else {{ Pipeline::<STAGES>::attach(barriers) }};
    barrier();
    let mut acc: u32 = tid;
    if tid == 0 {{
        let mut state = PipelineState::<STAGES>::producer_start();
{producer}        pipeline.producer_tail(state);
    }} else if tid >= 32 {{
        let ring = dynamic_shared_base::<u32>();
        let mut state = PipelineState::<STAGES>::new();
{consumer}    }}
    // SAFETY: `out` holds one word per thread.
    unsafe {{ *out.add(tid as usize) = acc }};
}}
"#,
        device = device.display(),
    );
    let cargo_toml = "# Generated by `regress::kernel_source` for `cargo xtask timing`.\n\
         [workspace]\n\n\
         [package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [lib]\ncrate-type = [\"cdylib\"]\n\n\
         [profile.dev]\npanic = \"abort\"\n\n\
         [profile.release]\npanic = \"abort\"\nopt-level = 3\n"
        .to_string();
    KernelSource { cargo_toml, lib_rs, estimated_blocks: estimated }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_follows_the_request_and_the_seed_fixes_the_source() {
        let device = Path::new("/repo/kernels/src/device");
        for blocks in [100, 200, 400, 800, 1600] {
            let source = story_kernel(blocks, 1, device);
            let ratio = source.estimated_blocks as f64 / blocks as f64;
            assert!(
                (0.9..=1.1).contains(&ratio),
                "{blocks} blocks requested, {} estimated",
                source.estimated_blocks
            );
        }
        assert_eq!(story_kernel(400, 1, device), story_kernel(400, 1, device));
        assert_ne!(story_kernel(400, 1, device).lib_rs, story_kernel(400, 2, device).lib_rs);
        let baseline = story_kernel(0, 1, device);
        assert_eq!(baseline.estimated_blocks, FRAME_BLOCKS);
        assert!(!baseline.lib_rs.contains("producer_acquire") && baseline.lib_rs.contains("producer_tail"));
    }

    #[test]
    fn the_kernel_runs_the_story_in_order_and_ends_with_the_tail() {
        let source = story_kernel(300, 4, Path::new("/d")).lib_rs;
        let position = |needle: &str| source.find(needle).unwrap_or_else(|| panic!("no `{needle}`"));
        assert!(position("producer_acquire") < position("producer_expect_tx"));
        assert!(position("producer_expect_tx") < position("bulk_copy_global_to_shared(smem"));
        assert!(position("consumer_wait") < position("consumer_release"));
        // Every consumer round releases before it advances.
        let consumer = &source[position("PipelineState::<STAGES>::new()")..];
        for round in consumer.split("pipeline.consumer_wait(&state);").skip(1) {
            let release = round.find("consumer_release").expect("a round releases");
            assert!(release < round.find("state.advance()").expect("a round advances"));
        }
        let tail = position("pipeline.producer_tail(state)");
        assert!(
            source[..tail].matches("producer_acquire").count() == source.matches("producer_acquire").count()
        );
        assert!(source.contains("#[path = \"/d/mod.rs\"]"));
        assert!(source.contains(&format!("fn {ENTRY}(")));
    }
}
