//! Hopper's warpgroup matrix multiply (`wgmma`, sm_90a): shared-memory matrix descriptors, the
//! asynchronous `mma_async` on bf16 operands with f32 accumulators, and the fence, commit and
//! wait instructions that order it.
//!
//! A warpgroup (four consecutive warps, the first a multiple of four) issues every instruction
//! here together. The protocol, per batch of multiplies:
//! [`fence`] (the accumulators and operand tiles written by ordinary code are visible to the
//! tensor cores) → one or more [`mma_m64n128k16_bf16`] → [`commit_group`] → [`wait_group`]
//! before the accumulators are read or a stage they read is released.
//!
//! The accumulators live in registers that the tensor cores write asynchronously; every function
//! that orders them takes the accumulators as operands, so the compiler cannot move a read of
//! them across the wait.

use core::arch::asm;

/// Accumulators of one warpgroup's 64×128 f32 tile: 64 per thread.
///
/// Thread `t` of the warpgroup (warp `w = t / 32`, lane `l`) holds, for `j` in `0..16`,
/// `[4j]`, `[4j + 1]` at row `16w + l / 4`, columns `8j + 2(l % 4)` and `+ 1`, and
/// `[4j + 2]`, `[4j + 3]` at row `16w + l / 4 + 8`, the same columns.
pub type Accumulators64x128 = [f32; 64];

/// Bytes of one row of a K-major tile with the 128-byte swizzle (64 bf16 values).
pub const SWIZZLE_128B_ROW_BYTES: u32 = 128;

/// Descriptor of a K-major bf16 tile in shared memory, laid out by the tensor copy engine with
/// the 128-byte swizzle: rows of 64 values (128 bytes), groups of 8 rows 1024 bytes apart.
///
/// `address` is the tile's shared-window address plus `32 * k` bytes for the `k`-th slice of 16
/// values along K; the tile itself must start on a 1024-byte boundary (the swizzle pattern
/// repeats every 1024 bytes and the descriptor's base offset is 0).
///
/// Layout (PTX ISA, "matrix descriptor"): bits 0–13 start address >> 4; 16–29 leading-dimension
/// byte offset >> 4 (unused for swizzled K-major layouts, 1 by convention); 32–45 stride byte
/// offset >> 4 (1024 bytes between groups of 8 rows); 49–51 base offset (0); 62–63 swizzle
/// mode (1 = 128-byte).
#[inline(always)]
pub fn k_major_swizzle_128b_descriptor(address: u32) -> u64 {
    const LEADING_BYTE_OFFSET: u64 = 16 >> 4;
    const STRIDE_BYTE_OFFSET: u64 = (8 * SWIZZLE_128B_ROW_BYTES as u64) >> 4;
    const SWIZZLE_128B: u64 = 1;
    ((address as u64 >> 4) & 0x3fff)
        | (LEADING_BYTE_OFFSET << 16)
        | (STRIDE_BYTE_OFFSET << 32)
        | (SWIZZLE_128B << 62)
}

/// `asm!` with the 64 accumulators of a 64×128 tile as its operands `{0}`…`{63}` (each `inout`
/// in a 32-bit register), after the templates and before the remaining arguments: the fence,
/// the multiply and the wait all tie the accumulators to the instruction this way.
macro_rules! asm_with_accumulators {
    ($accumulators:ident; $($template:literal),+; $($rest:tt)*) => {
        asm!(
            $($template),+,
            inout(reg32) $accumulators[0],
            inout(reg32) $accumulators[1],
            inout(reg32) $accumulators[2],
            inout(reg32) $accumulators[3],
            inout(reg32) $accumulators[4],
            inout(reg32) $accumulators[5],
            inout(reg32) $accumulators[6],
            inout(reg32) $accumulators[7],
            inout(reg32) $accumulators[8],
            inout(reg32) $accumulators[9],
            inout(reg32) $accumulators[10],
            inout(reg32) $accumulators[11],
            inout(reg32) $accumulators[12],
            inout(reg32) $accumulators[13],
            inout(reg32) $accumulators[14],
            inout(reg32) $accumulators[15],
            inout(reg32) $accumulators[16],
            inout(reg32) $accumulators[17],
            inout(reg32) $accumulators[18],
            inout(reg32) $accumulators[19],
            inout(reg32) $accumulators[20],
            inout(reg32) $accumulators[21],
            inout(reg32) $accumulators[22],
            inout(reg32) $accumulators[23],
            inout(reg32) $accumulators[24],
            inout(reg32) $accumulators[25],
            inout(reg32) $accumulators[26],
            inout(reg32) $accumulators[27],
            inout(reg32) $accumulators[28],
            inout(reg32) $accumulators[29],
            inout(reg32) $accumulators[30],
            inout(reg32) $accumulators[31],
            inout(reg32) $accumulators[32],
            inout(reg32) $accumulators[33],
            inout(reg32) $accumulators[34],
            inout(reg32) $accumulators[35],
            inout(reg32) $accumulators[36],
            inout(reg32) $accumulators[37],
            inout(reg32) $accumulators[38],
            inout(reg32) $accumulators[39],
            inout(reg32) $accumulators[40],
            inout(reg32) $accumulators[41],
            inout(reg32) $accumulators[42],
            inout(reg32) $accumulators[43],
            inout(reg32) $accumulators[44],
            inout(reg32) $accumulators[45],
            inout(reg32) $accumulators[46],
            inout(reg32) $accumulators[47],
            inout(reg32) $accumulators[48],
            inout(reg32) $accumulators[49],
            inout(reg32) $accumulators[50],
            inout(reg32) $accumulators[51],
            inout(reg32) $accumulators[52],
            inout(reg32) $accumulators[53],
            inout(reg32) $accumulators[54],
            inout(reg32) $accumulators[55],
            inout(reg32) $accumulators[56],
            inout(reg32) $accumulators[57],
            inout(reg32) $accumulators[58],
            inout(reg32) $accumulators[59],
            inout(reg32) $accumulators[60],
            inout(reg32) $accumulators[61],
            inout(reg32) $accumulators[62],
            inout(reg32) $accumulators[63],
            $($rest)*
        )
    };
}

/// Makes the accumulators and the shared-memory operands written by ordinary code visible to
/// the next `mma_async` of this warpgroup (`wgmma.fence`).
#[inline(always)]
pub fn fence(accumulators: &mut Accumulators64x128) {
    // SAFETY: a fence; the accumulators are operands only to keep their accesses ordered.
    unsafe {
        asm_with_accumulators!(
            accumulators;
            "wgmma.fence.sync.aligned;",
            "// {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15} {16} {17} {18} {19} {20} {21} {22} {23} {24} {25} {26} {27} {28} {29} {30} {31} {32} {33} {34} {35} {36} {37} {38} {39} {40} {41} {42} {43} {44} {45} {46} {47} {48} {49} {50} {51} {52} {53} {54} {55} {56} {57} {58} {59} {60} {61} {62} {63}";
            options(nostack),
        );
    }
}

/// `D = A·Bᵀ + D` (or `D = A·Bᵀ` when `accumulate` is false) for one 64×128×16 step, issued
/// asynchronously by the warpgroup: A is 64×16 and B is 128×16, both K-major bf16 tiles in
/// shared memory given by their descriptors ([`k_major_swizzle_128b_descriptor`]).
///
/// The accumulators must not be read before a [`wait_group`] that covers this multiply.
#[inline(always)]
pub fn mma_m64n128k16_bf16(accumulators: &mut Accumulators64x128, a: u64, b: u64, accumulate: bool) {
    let accumulate = accumulate as u32;
    // SAFETY: the descriptors name tiles in shared memory that the caller keeps alive and
    // unchanged until a `wait_group` covers this multiply.
    unsafe {
        asm_with_accumulators!(
            accumulators;
            "{{",
            ".reg .pred accumulate;",
            "setp.ne.u32 accumulate, {66}, 0;",
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{",
            "{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7},",
            "{8}, {9}, {10}, {11}, {12}, {13}, {14}, {15},",
            "{16}, {17}, {18}, {19}, {20}, {21}, {22}, {23},",
            "{24}, {25}, {26}, {27}, {28}, {29}, {30}, {31},",
            "{32}, {33}, {34}, {35}, {36}, {37}, {38}, {39},",
            "{40}, {41}, {42}, {43}, {44}, {45}, {46}, {47},",
            "{48}, {49}, {50}, {51}, {52}, {53}, {54}, {55},",
            "{56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}",
            "}}, {64}, {65}, accumulate, 1, 1, 0, 0;",
            "}}";
            in(reg64) a,
            in(reg64) b,
            in(reg32) accumulate,
            options(nostack),
        );
    }
}

/// Closes the batch of `mma_async` issued since the last commit into one group.
#[inline(always)]
pub fn commit_group() {
    // SAFETY: no operands.
    unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) };
}

/// Waits until at most `PENDING` committed groups of this warpgroup are still running; with
/// `PENDING = 0` every multiply has written its accumulators.
#[inline(always)]
pub fn wait_group<const PENDING: u32>(accumulators: &mut Accumulators64x128) {
    // SAFETY: a wait; the accumulators are operands so that no read of them moves above it.
    unsafe {
        asm_with_accumulators!(
            accumulators;
            "wgmma.wait_group.sync.aligned {pending};",
            "// {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15} {16} {17} {18} {19} {20} {21} {22} {23} {24} {25} {26} {27} {28} {29} {30} {31} {32} {33} {34} {35} {36} {37} {38} {39} {40} {41} {42} {43} {44} {45} {46} {47} {48} {49} {50} {51} {52} {53} {54} {55} {56} {57} {58} {59} {60} {61} {62} {63}";
            pending = const PENDING,
            options(nostack),
        );
    }
}
