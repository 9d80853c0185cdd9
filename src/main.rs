mod diagnostic;
mod io;
mod resource;
mod scope;

fn main() {}
