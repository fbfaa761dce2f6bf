//! Block reduction (sum) through dynamic shared memory and barriers.

use crate::device::launch::block_threads_power_of_two;
use crate::device::strided::strided;
use crate::device::{
    barrier, block_dim_x, block_idx_x, dynamic_shared_base, global_thread_index, grid_thread_count,
    thread_idx_x,
};

/// Sums `input[0..n]` into one partial sum per block: `partials[block]` is the sum of the
/// elements this block's threads visit in a grid-stride loop. The host adds the `gridDim.x`
/// partials (or launches this kernel again on them). Each thread batches its loads
/// ([`strided`]), so several are in flight.
///
/// Special values: a block's partial is NaN when its elements hold a NaN or both infinities,
/// ±inf when they hold one infinity or sum beyond `f32::MAX`, as PyTorch's `torch.sum` over
/// the same elements. `n = 0` writes zeros; `input` needs only `f32` alignment.
///
/// Launch: one-dimensional; `blockDim.x` a power of two (at most 1024); dynamic shared memory
/// `blockDim.x * 4` bytes. The tree reduction in shared memory halves the active threads per
/// step, with a barrier between steps.
///
/// # Safety
/// `input` points to `n` floats and `partials` to `gridDim.x` floats of device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_reduce_sum(input: *const f32, partials: *mut f32, n: usize) {
    block_threads_power_of_two(1024);
    let mut sum = 0.0f32;
    // SAFETY: `strided` passes indices below `n`.
    strided(global_thread_index(), n, grid_thread_count(), |i| unsafe { *input.add(i) }, |_, v| sum += v);

    let tid = thread_idx_x() as usize;
    let sums = dynamic_shared_base::<f32>();
    // SAFETY: the launch gives `blockDim.x` floats of dynamic shared memory; `tid` and
    // `tid + active` stay below `blockDim.x`.
    unsafe {
        *sums.add(tid) = sum;
        barrier();
        let mut active = block_dim_x() as usize / 2;
        while active > 0 {
            if tid < active {
                *sums.add(tid) += *sums.add(tid + active);
            }
            barrier();
            active /= 2;
        }
        if tid == 0 {
            *partials.add(block_idx_x() as usize) = *sums;
        }
    }
}
