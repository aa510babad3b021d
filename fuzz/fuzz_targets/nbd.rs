//! Any bytes from an NBD client: the handshake and then requests are answered or the
//! connection is dropped; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_serve::protocol::{Export, Handshake, handshake, read_request};
use std::io::{Cursor, Read, Write};

/// The client's bytes in, the server's replies to nowhere.
struct Wire(Cursor<Vec<u8>>);

impl Read for Wire {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for Wire {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let export = Export { name: String::new(), size_bytes: 1 << 30, block_bytes: 512 };
    let mut wire = Wire(Cursor::new(data.to_vec()));
    if let Ok(Handshake::Transmission) = handshake(&mut wire, &export) {
        while let Ok(Some(_)) = read_request(&mut wire) {}
    }
});
