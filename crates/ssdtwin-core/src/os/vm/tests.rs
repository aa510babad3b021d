//! Unit tests of the VM's bookkeeping on a tiny machine; mechanism tests with timing live
//! in `tests/vm.rs`.
