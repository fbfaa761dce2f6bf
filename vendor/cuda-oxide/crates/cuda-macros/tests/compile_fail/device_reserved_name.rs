use cuda_macros::device;

#[device]
fn cuda_oxide_device_evil() {}

fn main() {}
