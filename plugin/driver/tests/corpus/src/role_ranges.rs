//! Consumers chosen by ranges: `matches!` and `match` range patterns, `contains` on constant
//! ranges (exclusive and inclusive), and plain comparisons; right and off by some threads.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::Pipeline;
use crate::device::{WARP_SIZE, barrier, dynamic_shared_window_address, thread_idx_x};
use crate::{BARRIERS, BLOCK_THREADS, CONSUMERS, SHARED_BYTES, STAGES, write_partial};

/// The first consumer thread, and one past the last.
const FIRST: u32 = 32;
const END: u32 = 64;

/// A kernel whose thread 0 produces and whose consumers are the threads where the condition
/// holds (`init` announces [`CONSUMERS`]).
macro_rules! range_roles_kernel {
    ($(#[$doc:meta])* fn $name:ident($tid:ident) consumers if $condition:expr;) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(BLOCK_THREADS);
            dynamic_shared_bytes(SHARED_BYTES);
            let smem = dynamic_shared_window_address();
            let $tid = thread_idx_x();
            let pipeline = if $tid == 0 {
                Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
            } else {
                Pipeline::<STAGES>::attach(smem + BARRIERS)
            };
            barrier();
            let mut partial = 0.0f32;
            if $tid == 0 {
                standard_producer!(pipeline, smem, input, tiles);
            } else if $condition {
                partial = standard_consumer!(pipeline, $tid, tiles);
            }
            write_partial(out, $tid, partial);
        }
    };
}

range_roles_kernel! {
    /// CORRECT: `matches!` with an inclusive range pattern names the 32 consumers.
    fn consumers_by_matches(tid) consumers if matches!(tid, 32..=63);
}

range_roles_kernel! {
    /// BROKEN: the pattern stops one thread short: 31 release, `init` announced 32.
    fn consumers_by_matches_short(tid) consumers if matches!(tid, 32..=62);
}

range_roles_kernel! {
    /// CORRECT: `contains` on a range of local constants.
    fn consumers_by_const_range(tid) consumers if (FIRST..END).contains(&tid);
}

range_roles_kernel! {
    /// BROKEN: the range starts one thread early: 33 release on a barrier announced for 32.
    fn consumers_by_const_range_wide(tid) consumers if (FIRST - 1..END).contains(&tid);
}

range_roles_kernel! {
    /// CORRECT: `contains` on an inclusive constant range.
    fn consumers_by_inclusive_range(tid) consumers if (WARP_SIZE..=2 * WARP_SIZE - 1).contains(&tid);
}

range_roles_kernel! {
    /// BROKEN: half a warp in an inclusive range: 16 release, `init` announced 32.
    fn consumers_by_inclusive_range_half(tid) consumers if (WARP_SIZE..=WARP_SIZE + 15).contains(&tid);
}

range_roles_kernel! {
    /// CORRECT: two comparisons.
    fn consumers_by_comparisons(tid) consumers if tid >= WARP_SIZE && tid < WARP_SIZE + CONSUMERS;
}

range_roles_kernel! {
    /// BROKEN: `>` where `>=` was meant: 31 release, `init` announced 32.
    fn consumers_by_comparisons_off_by_one(tid) consumers if tid > WARP_SIZE && tid < WARP_SIZE + CONSUMERS;
}

/// CORRECT: roles as the arms of a `match` on the thread index, with a range pattern.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn consumers_by_match_arms(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let partial = match tid {
        0 => {
            standard_producer!(pipeline, smem, input, tiles);
            0.0
        }
        32..=63 => standard_consumer!(pipeline, tid, tiles),
        _ => 0.0,
    };
    write_partial(out, tid, partial);
}

/// BROKEN: the consumer arm covers threads 48 to 63 only: 16 release, `init` announced 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn consumers_by_match_arms_short(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let smem = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(smem + BARRIERS, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(smem + BARRIERS)
    };
    barrier();
    let partial = match tid {
        0 => {
            standard_producer!(pipeline, smem, input, tiles);
            0.0
        }
        48..=63 => standard_consumer!(pipeline, tid, tiles),
        _ => 0.0,
    };
    write_partial(out, tid, partial);
}
