#![feature(iter_intersperse)]
#![feature(box_patterns)]

pub mod serialize;
pub mod syntax;
pub mod tyctxt;
