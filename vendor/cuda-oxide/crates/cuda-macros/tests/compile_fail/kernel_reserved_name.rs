use cuda_macros::kernel;

#[kernel]
fn cuda_oxide_kernel_evil() {}

fn main() {}
