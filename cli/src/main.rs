//! `kuatia` command line: a thin host over kuatia-core.
fn main() {}
