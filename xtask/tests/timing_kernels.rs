//! The end-to-end part of `cargo xtask timing` builds generated kernels for real: this test
//! builds the smallest one through the same code and checks that the PTX holds its entry.

use regress::kernel_source::ENTRY;
use regress::layout::Layout;
use xtask::kernels::entry_names;
use xtask::timing::{KERNEL_SIZES, TimingCrate};

#[test]
fn the_smallest_generated_kernel_builds_to_ptx_with_its_entry() {
    let layout = Layout::from_build();
    let dir = layout.root().join("target/xtask-scratch/timing-kernels-test");
    let krate = TimingCrate::create(&layout, dir).expect("scratch crate");
    let source = krate.write(KERNEL_SIZES[0], 1).expect("writing the generated crate");
    assert!(source.lib_rs.contains(ENTRY));
    krate.build().unwrap_or_else(|error| panic!("building the generated kernel: {error:#}"));
    let entries = entry_names(&krate.ptx()).expect("reading the PTX");
    assert_eq!(entries, vec![ENTRY.to_string()]);
}
