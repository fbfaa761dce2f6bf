//! The catalogue is consistent: every case of every kernel has inputs, an expected output of
//! the length the kernel writes, and a launch its contract allows.

use gpu_runner::cases::{
    GEMV_BATCHED_SPLIT_ENTRIES, GEMV_BATCHED_WIDTHS, Kernel, Launch, RMS_NORM_HELD_WEIGHT,
    RMS_NORM_HELD_WEIGHT_MAX_BLOCK, Shape, chained_cases, checked_correctness_cases, correctness_cases,
    decode_cases, output_len, special_cases, timing_cases, work,
};

#[test]
fn every_case_has_an_expectation_of_the_written_length() {
    let mut rng = fastrand::Rng::with_seed(1);
    for (case, _, expected) in checked_correctness_cases(132, &mut rng) {
        assert_eq!(expected.values.len(), output_len(&case), "{} {}", case.kernel, case.shape);
    }
}

#[test]
fn launches_follow_the_contracts() {
    for kernel in Kernel::ALL {
        let cases = correctness_cases(kernel, 132).into_iter().chain(timing_cases(kernel, 132));
        for case in cases.chain(decode_cases(kernel)) {
            let (block, grid) = (case.launch.block, case.launch.grid);
            assert!(case.launch.cluster == 1 || matches!(kernel, Kernel::RmsNorm | Kernel::SoftmaxRows));
            assert!(grid.0 >= 1 && grid.1 >= 1, "{kernel}: empty grid");
            assert!(block.0 * block.1 <= 1024, "{kernel}: block too large");
            match kernel {
                k if case.launch.column_split && k != Kernel::GemvF16Batched => {
                    panic!("{kernel}: only gemv_f16_batched splits columns")
                }
                Kernel::BlockReduceSum => {
                    assert!(block.0.is_power_of_two() && case.launch.shared_bytes == 4 * block.0)
                }
                Kernel::RmsNorm | Kernel::SoftmaxRows if case.launch.cluster > 1 => {
                    // Clusters of at most 16 blocks (the exchange's slots; above 8 the runner
                    // opts the function in to non-portable sizes), the grid whole clusters,
                    // and the exchange's slots after the block reduction's scratch: a float per
                    // block and set for rms_norm's sum, a pair for softmax's maximum and sum.
                    let cluster = case.launch.cluster;
                    assert!(cluster <= 16 && grid.0.is_multiple_of(cluster), "{kernel} {}", case.launch);
                    let exchange = if kernel == Kernel::SoftmaxRows { 256 } else { 128 };
                    assert!(block.0.is_multiple_of(32) && case.launch.shared_bytes == 128 + exchange)
                }
                Kernel::RmsNorm | Kernel::SoftmaxRows | Kernel::GemvF16 => {
                    assert!(block.0.is_multiple_of(32) && case.launch.shared_bytes == 128)
                }
                // Warp reductions only, no shared memory; the split entries add a float per
                // (warp, weight row, activation row of a pass) where the warps' sums meet.
                Kernel::GemvF16Batched => {
                    let Shape::Batched { batch, .. } = case.shape else { panic!("{kernel} takes a batch") };
                    let (warps, width) =
                        (block.0 / 32, [1u32, 2, 4].into_iter().find(|w| batch <= *w as usize).unwrap_or(4));
                    let split_bytes = if warps > 1 { 4 * warps * 8 * width } else { 0 };
                    let shared = if case.launch.column_split { split_bytes } else { 0 };
                    assert!(
                        block.0.is_multiple_of(32) && case.launch.shared_bytes == shared,
                        "{}",
                        case.launch
                    )
                }
                Kernel::PipelineSum => assert_eq!((block.0, case.launch.shared_bytes), (160, 16_576)),
                Kernel::GemmBf16Wgmma => {
                    // Two consumer warpgroups and the producer warp; the ring, raised past
                    // the default 48 KiB before any launch; a block per 128 × 128 tile of C (one for
                    // an empty C, which it leaves unwritten).
                    let Shape::Gemm { m, n, .. } = case.shape else { panic!("{kernel} takes a GEMM") };
                    assert_eq!((block.0, case.launch.shared_bytes), (288, 132_160));
                    assert_eq!(gpu_runner::cases::dynamic_shared_limit(kernel), Some(132_160));
                    assert_eq!(
                        (grid.0 as usize, grid.1 as usize),
                        (n.div_ceil(128).max(1), m.div_ceil(128).max(1))
                    );
                }
                Kernel::SharedHelperLocal | Kernel::SharedHelperCrossCrate => {
                    let Shape::Elements(n) = case.shape else { panic!("{kernel} takes elements") };
                    assert!((grid.0 * block.0) as usize >= n, "{kernel}: the grid must cover n");
                }
                _ => {}
            }
            assert!(work(kernel, case.shape).bytes > 0 || output_len(&case) <= 1);
        }
    }
}

#[test]
fn timing_shapes_outgrow_the_l2() {
    // The H200's L2 is 60 MiB; a timing shape that fit in it would measure the cache. The
    // smallest is the GEMV, 14336 × 4096 halves: 112 MiB.
    for kernel in Kernel::ALL {
        for case in timing_cases(kernel, 132) {
            assert!(2 * work(kernel, case.shape).bytes >= 3 * (60 << 20), "{kernel} {}", case.shape);
        }
    }
}

#[test]
fn every_entry_name_round_trips() {
    for kernel in Kernel::ALL {
        assert_eq!(Kernel::from_entry(kernel.entry()), Some(kernel));
    }
    assert_eq!(Kernel::from_entry("no_such_kernel"), None);
}

#[test]
fn a_batched_gemv_launches_the_narrowest_entry_that_holds_its_batch_and_every_entry_is_tried() {
    let pick = |batch| {
        let case = correctness_cases(Kernel::GemvF16Batched, 132).into_iter().next().unwrap();
        gpu_runner::cases::Case { shape: Shape::Batched { batch, rows: 1, cols: 1 }, ..case }.entry()
    };
    assert_eq!(pick(0), "gemv_f16_batched_1");
    assert_eq!(pick(1), "gemv_f16_batched_1");
    assert_eq!(pick(2), "gemv_f16_batched_2");
    assert_eq!(pick(3), "gemv_f16_batched_4");
    assert_eq!(pick(5), "gemv_f16_batched_8");
    assert_eq!(pick(9), "gemv_f16_batched");
    assert_eq!(pick(40), "gemv_f16_batched");
    // Each entry on both of its paths: the 16-byte one and one weight at a time; the split
    // entries also with one warp and with several.
    let cases = correctness_cases(Kernel::GemvF16Batched, 132);
    for (_, entry) in GEMV_BATCHED_SPLIT_ENTRIES {
        let split = |c: &&gpu_runner::cases::Case| c.entry() == entry && c.launch.column_split;
        assert!(cases.iter().filter(split).any(|c| c.launch.block.0 > 32), "{entry} never splits");
        for sixteen_bytes in [true, false] {
            let on_path = |c: &&gpu_runner::cases::Case| match c.shape {
                Shape::Batched { batch, cols, .. } => batch > 0 && cols.is_multiple_of(8) == sixteen_bytes,
                _ => unreachable!(),
            };
            assert!(
                cases.iter().filter(split).any(|c| on_path(&c)),
                "{entry}, sixteen_bytes = {sixteen_bytes}"
            );
        }
    }
    assert!(cases.iter().any(|c| c.launch.column_split && c.launch.block.0 == 32));
    assert!(
        !cases.iter().any(|c| c.launch.column_split && GEMV_BATCHED_WIDTHS.iter().any(|w| w.1 == c.entry()))
    );
    for (_, entry, _) in GEMV_BATCHED_WIDTHS {
        for sixteen_bytes in [true, false] {
            assert!(
                cases.iter().any(|c| {
                    let Shape::Batched { batch, cols, .. } = c.shape else { unreachable!() };
                    c.entry() == entry && batch > 0 && cols.is_multiple_of(8) == sixteen_bytes
                }),
                "no correctness case runs {entry} with sixteen_bytes = {sixteen_bytes}"
            );
        }
    }
}

#[test]
fn rms_norm_split_across_clusters_launches_the_held_weight_entry_where_its_registers_fit() {
    let cases: Vec<_> = correctness_cases(Kernel::RmsNorm, 132)
        .into_iter()
        .chain(special_cases(Kernel::RmsNorm))
        .chain(decode_cases(Kernel::RmsNorm))
        .collect();
    for case in &cases {
        let held = case.launch.cluster > 1 && case.launch.block.0 <= RMS_NORM_HELD_WEIGHT_MAX_BLOCK;
        let expected = if held { RMS_NORM_HELD_WEIGHT } else { "rms_norm" };
        assert_eq!(case.entry(), expected, "{} {}", case.shape, case.launch);
    }
    // Both entries run, the held-weight one in correctness cases whose segments take its
    // one-read path (the only path where it differs) and in special-value cases.
    let one_read_segment = |case: &&gpu_runner::cases::Case| {
        let Shape::Matrix { cols, .. } = case.shape else { unreachable!() };
        let segment = cols.div_ceil(case.launch.cluster as usize).next_multiple_of(4);
        cols.is_multiple_of(4) && segment <= 16 * case.launch.block.0 as usize
    };
    let held_weight = |case: &&gpu_runner::cases::Case| case.entry() == RMS_NORM_HELD_WEIGHT;
    let checked = correctness_cases(Kernel::RmsNorm, 132);
    assert!(checked.iter().filter(held_weight).any(|c| one_read_segment(&c)));
    assert!(checked.iter().any(|c| c.entry() == "rms_norm"));
    assert!(special_cases(Kernel::RmsNorm).iter().any(|c| held_weight(&c)));
}

#[test]
fn the_row_kernels_are_chained_on_each_entry_and_path_they_launch() {
    for kernel in [Kernel::RmsNorm, Kernel::SoftmaxRows] {
        let chained = chained_cases(kernel);
        // A block per row and rows split across clusters, one-read and two-read (4099 columns).
        assert!(chained.iter().any(|c| c.launch.cluster == 1), "{kernel}");
        assert!(
            chained.iter().any(|c| c.launch.cluster > 1 && c.shape == Shape::Matrix { rows: 7, cols: 4099 })
        );
        for entry in kernel.entries() {
            assert!(chained.iter().any(|c| c.entry() == entry), "{entry} is never chained");
        }
    }
    for kernel in Kernel::ALL.into_iter().filter(|k| !matches!(k, Kernel::RmsNorm | Kernel::SoftmaxRows)) {
        assert!(chained_cases(kernel).is_empty(), "{kernel} waits for no prior grid");
    }
}

/// The registers per thread of each kernel entry in the last `ptxas -arch=sm_90 -v` report
/// recorded on the H200 (`regress/ptxas-sm90.tsv`).
fn recorded_registers() -> Vec<(String, u32)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../regress/ptxas-sm90.tsv");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            (fields.get(1) == Some(&"entry"))
                .then(|| (fields[0].to_owned(), fields[2].parse().expect("registers")))
        })
        .collect()
}

#[test]
fn every_launch_fits_the_registers_ptxas_gave_its_kernel() {
    // rms_norm and softmax_rows keep 16 floats of a row per thread in registers and are
    // launched with 1024-thread blocks, which allow 64 registers per thread: a kernel change
    // that needs more fails here (once the ptxas figures are re-recorded) instead of as a
    // launch the GPU refuses.
    let registers = recorded_registers();
    let used_by = |entry: &str| {
        registers
            .iter()
            .find(|(name, _)| name == entry)
            .unwrap_or_else(|| panic!("regress/ptxas-sm90.tsv has no row for {entry}"))
            .1
    };
    for kernel in Kernel::ALL {
        let cases = correctness_cases(kernel, 132)
            .into_iter()
            .chain(timing_cases(kernel, 132))
            .chain(decode_cases(kernel))
            .chain(special_cases(kernel))
            .chain(chained_cases(kernel));
        for case in cases {
            let used = used_by(case.entry());
            assert!(
                case.launch.fits_registers(used),
                "{} uses {used} registers: {} cannot launch",
                case.entry(),
                case.launch
            );
        }
    }
}

#[test]
fn the_register_check_refuses_what_the_gpu_refuses() {
    let block = |threads| Launch {
        grid: (1, 1),
        block: (threads, 1),
        shared_bytes: 0,
        cluster: 1,
        column_split: false,
    };
    assert!(block(1024).fits_registers(64));
    assert!(block(1024).fits_registers(57), "57 rounds up to 64");
    assert!(!block(1024).fits_registers(65), "65 rounds up to 72: 73,728 registers");
    assert!(block(256).fits_registers(255));
    let square = Launch { grid: (1, 1), block: (16, 16), shared_bytes: 0, cluster: 1, column_split: false };
    assert!(!square.fits_registers(256 + 8));
}

#[test]
fn decode_shapes_are_few_long_rows() {
    for kernel in Kernel::ALL {
        for case in decode_cases(kernel) {
            let Shape::Matrix { rows, cols } = case.shape else { panic!("{kernel}: decode shapes are rows") };
            assert!((1..=64).contains(&rows) && (4096..=32768).contains(&cols), "{kernel} {}", case.shape);
        }
    }
    assert!(decode_cases(Kernel::RmsNorm).iter().any(|c| c.shape == Shape::Matrix { rows: 4, cols: 32768 }));
    // Few rows leave most of the GPU idle with a block per row: each decode shape is also
    // tried with its rows split across clusters.
    for kernel in [Kernel::RmsNorm, Kernel::SoftmaxRows] {
        let split = |c: &&gpu_runner::cases::Case| c.launch.cluster > 1 && c.shape.dims() == [4, 32768];
        assert!(decode_cases(kernel).iter().any(|c| split(&c)), "{kernel}: no split decode launch");
    }
}
