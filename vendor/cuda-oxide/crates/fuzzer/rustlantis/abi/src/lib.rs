pub mod align;
pub mod size;
