//! The catalogue is consistent: every case of every kernel has inputs, an expected output of
//! the length the kernel writes, and a launch its contract allows.

use gpu_runner::cases::{Kernel, Shape, correctness_cases, expected, inputs, output_len, timing_cases, work};

#[test]
fn every_case_has_an_expectation_of_the_written_length() {
    let mut rng = fastrand::Rng::with_seed(1);
    for kernel in Kernel::ALL {
        for case in correctness_cases(kernel, 132) {
            let data = inputs(&case, &mut rng);
            let expected = expected(&case, &data);
            assert_eq!(expected.values.len(), output_len(&case), "{kernel} {}", case.shape);
        }
    }
}

#[test]
fn launches_follow_the_contracts() {
    for kernel in Kernel::ALL {
        for case in correctness_cases(kernel, 132).into_iter().chain(timing_cases(kernel, 132)) {
            let (block, grid) = (case.launch.block, case.launch.grid);
            assert!(grid.0 >= 1 && grid.1 >= 1, "{kernel}: empty grid");
            assert!(block.0 * block.1 <= 1024, "{kernel}: block too large");
            match kernel {
                Kernel::BlockReduceSum => {
                    assert!(block.0.is_power_of_two() && case.launch.shared_bytes == 4 * block.0)
                }
                Kernel::RmsNorm | Kernel::SoftmaxRows | Kernel::GemvF16 => {
                    assert!(block.0.is_multiple_of(32) && case.launch.shared_bytes == 128)
                }
                Kernel::PipelineSum => assert_eq!((block.0, case.launch.shared_bytes), (160, 16_576)),
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
