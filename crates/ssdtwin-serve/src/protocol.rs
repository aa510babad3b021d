//! The NBD protocol as the server speaks it (`NetworkBlockDevice/nbd`, `doc/proto.md`): the fixed
//! newstyle handshake with `OPT_GO`, `OPT_INFO`, `OPT_EXPORT_NAME`, `OPT_LIST` and
//! `OPT_ABORT` (every other option answered `ERR_UNSUP`), then simple replies to READ,
//! WRITE, FLUSH, TRIM, `WRITE_ZEROES` and DISC. All integers are big-endian.

use std::io::{self, Read, Write};

const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
const REQUEST_MAGIC: u32 = 0x2560_9513;
const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

const FLAG_FIXED_NEWSTYLE: u16 = 1;
const FLAG_NO_ZEROES: u16 = 2;
const CLIENT_FLAGS_KNOWN: u32 = 0b11;

const OPT_EXPORT_NAME: u32 = 1;
const OPT_ABORT: u32 = 2;
const OPT_LIST: u32 = 3;
const OPT_INFO: u32 = 6;
const OPT_GO: u32 = 7;

const REP_ACK: u32 = 1;
const REP_SERVER: u32 = 2;
const REP_INFO: u32 = 3;
const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
const REP_ERR_INVALID: u32 = (1 << 31) + 3;
const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;

const INFO_EXPORT: u16 = 0;
const INFO_BLOCK_SIZE: u16 = 3;

/// Transmission flags: flags present, FLUSH, FUA, TRIM and `WRITE_ZEROES` accepted, and one
/// drive behind every connection (`CAN_MULTI_CONN`).
const TRANSMISSION_FLAGS: u16 = 1 | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 6) | (1 << 8);

/// Option data larger than this ends the handshake (names are at most 4 KiB in the spec).
const MAX_OPTION_BYTES: u32 = 64 << 10;

/// The largest READ or WRITE payload the server takes (the spec's interoperable maximum).
pub const MAX_PAYLOAD_BYTES: u32 = 32 << 20;

/// `EIO`: the backing data file failed.
pub const EIO: u32 = 5;
/// `EINVAL`: a request outside the export, misaligned, too long or of an unknown type.
pub const EINVAL: u32 = 22;
/// `ENOSPC`: the in-memory data limit is reached.
pub const ENOSPC: u32 = 28;

/// The export the server offers.
#[derive(Clone, Debug)]
pub struct Export {
    /// Its name (clients that name none ask for "").
    pub name: String,
    /// Size, bytes.
    pub size_bytes: u64,
    /// The drive's logical block size: the smallest I/O the client should send.
    pub block_bytes: u32,
}

/// How a handshake ended.
#[derive(Debug)]
pub enum Handshake {
    /// The client chose the export: requests follow.
    Transmission,
    /// The client left (`OPT_ABORT`, or it closed the connection).
    Left,
}

/// A command (`NBD_CMD_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Read,
    Write,
    Disconnect,
    Flush,
    Trim,
    WriteZeroes,
    /// Any other type: answered `EINVAL`.
    Other(u16),
}

/// One request's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub command: Command,
    /// Force unit access: reply only once the data is on stable media.
    pub fua: bool,
    /// The client's cookie, echoed in the reply.
    pub cookie: u64,
    pub offset: u64,
    pub length: u32,
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_be_bytes(b))
}

fn protocol_error(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

/// One option reply.
fn option_reply(w: &mut impl Write, option: u32, reply: u32, data: &[u8]) -> io::Result<()> {
    let mut out = Vec::with_capacity(20 + data.len());
    out.extend_from_slice(&OPTION_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&option.to_be_bytes());
    out.extend_from_slice(&reply.to_be_bytes());
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(data);
    w.write_all(&out)
}

/// `NBD_OPT_INFO`/`NBD_OPT_GO` data: the export name and the info types asked for.
fn parse_info_request(data: &[u8]) -> Option<(String, Vec<u16>)> {
    let name_len = u32::from_be_bytes(data.get(..4)?.try_into().ok()?) as usize;
    let name = std::str::from_utf8(data.get(4..4 + name_len)?).ok()?.to_string();
    let rest = data.get(4 + name_len..)?;
    let n = u16::from_be_bytes(rest.get(..2)?.try_into().ok()?) as usize;
    let infos = rest.get(2..2 + 2 * n)?.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
    (rest.len() == 2 + 2 * n).then_some((name, infos))
}

/// Runs the server side of the handshake on `stream` until the client picks `export` or
/// leaves. Errors are protocol violations or I/O failures: the caller drops the connection.
pub fn handshake(stream: &mut (impl Read + Write), export: &Export) -> io::Result<Handshake> {
    let mut hello = Vec::with_capacity(18);
    hello.extend_from_slice(&NBDMAGIC.to_be_bytes());
    hello.extend_from_slice(&IHAVEOPT.to_be_bytes());
    hello.extend_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    stream.write_all(&hello)?;
    let client_flags = match read_u32(stream) {
        Ok(flags) => flags,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Handshake::Left),
        Err(e) => return Err(e),
    };
    // The spec: a server MUST drop a client that sets a flag it does not know.
    if client_flags & !CLIENT_FLAGS_KNOWN != 0 || client_flags & 1 == 0 {
        return Err(protocol_error("unknown or missing client handshake flags"));
    }
    let no_zeroes = client_flags & 2 != 0;
    loop {
        let magic = match read_u64(stream) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Handshake::Left),
            Err(e) => return Err(e),
        };
        if magic != IHAVEOPT {
            return Err(protocol_error("option without IHAVEOPT"));
        }
        let option = read_u32(stream)?;
        let length = read_u32(stream)?;
        if length > MAX_OPTION_BYTES {
            return Err(protocol_error("option data too long"));
        }
        let mut data = vec![0; length as usize];
        stream.read_exact(&mut data)?;
        match option {
            OPT_EXPORT_NAME => {
                // No way to refuse here but to hang up, as the spec says.
                if String::from_utf8_lossy(&data) != export.name {
                    return Err(protocol_error("unknown export name"));
                }
                let mut out = Vec::with_capacity(10 + 124);
                out.extend_from_slice(&export.size_bytes.to_be_bytes());
                out.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                if !no_zeroes {
                    out.extend_from_slice(&[0; 124]);
                }
                stream.write_all(&out)?;
                return Ok(Handshake::Transmission);
            }
            // The spec gives these two no data: with some, the option is invalid (the
            // client is answered, and negotiation goes on).
            OPT_ABORT | OPT_LIST if !data.is_empty() => option_reply(stream, option, REP_ERR_INVALID, &[])?,
            OPT_ABORT => {
                // The client may already have gone: a failed ACK is no error.
                let _ = option_reply(stream, option, REP_ACK, &[]);
                return Ok(Handshake::Left);
            }
            OPT_LIST => {
                let mut server = (export.name.len() as u32).to_be_bytes().to_vec();
                server.extend_from_slice(export.name.as_bytes());
                option_reply(stream, option, REP_SERVER, &server)?;
                option_reply(stream, option, REP_ACK, &[])?;
            }
            OPT_INFO | OPT_GO => {
                // The info types asked for do not matter: the export and its block sizes are
                // always sent, as the spec recommends.
                let Some((name, _asked)) = parse_info_request(&data) else {
                    option_reply(stream, option, REP_ERR_INVALID, &[])?;
                    continue;
                };
                if name != export.name {
                    option_reply(stream, option, REP_ERR_UNKNOWN, b"no such export")?;
                    continue;
                }
                let mut info = INFO_EXPORT.to_be_bytes().to_vec();
                info.extend_from_slice(&export.size_bytes.to_be_bytes());
                info.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                option_reply(stream, option, REP_INFO, &info)?;
                let mut sizes = INFO_BLOCK_SIZE.to_be_bytes().to_vec();
                sizes.extend_from_slice(&export.block_bytes.to_be_bytes());
                sizes.extend_from_slice(&export.block_bytes.max(4096).to_be_bytes());
                sizes.extend_from_slice(&MAX_PAYLOAD_BYTES.to_be_bytes());
                option_reply(stream, option, REP_INFO, &sizes)?;
                option_reply(stream, option, REP_ACK, &[])?;
                if option == OPT_GO {
                    return Ok(Handshake::Transmission);
                }
            }
            _ => option_reply(stream, option, REP_ERR_UNSUP, &[])?,
        }
    }
}

/// Reads the next request header; `None` at the end of the stream. A header with a bad
/// magic is a protocol error.
pub fn read_request(r: &mut impl Read) -> io::Result<Option<Request>> {
    let mut header = [0; 28];
    let mut got = 0;
    while got < header.len() {
        match r.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let word = |at: usize| u32::from_be_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    if word(0) != REQUEST_MAGIC {
        return Err(protocol_error("request without the request magic"));
    }
    let flags = u16::from_be_bytes([header[4], header[5]]);
    let kind = u16::from_be_bytes([header[6], header[7]]);
    let command = match kind {
        0 => Command::Read,
        1 => Command::Write,
        2 => Command::Disconnect,
        3 => Command::Flush,
        4 => Command::Trim,
        6 => Command::WriteZeroes,
        other => Command::Other(other),
    };
    Ok(Some(Request {
        command,
        fua: flags & 1 != 0,
        cookie: u64::from_be_bytes(header[8..16].try_into().expect("8 bytes")),
        offset: u64::from_be_bytes(header[16..24].try_into().expect("8 bytes")),
        length: word(24),
    }))
}

/// A simple reply: the header, then `data` (a READ's bytes) when `error` is 0.
pub fn simple_reply(cookie: u64, error: u32, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + data.len());
    out.extend_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&error.to_be_bytes());
    out.extend_from_slice(&cookie.to_be_bytes());
    if error == 0 {
        out.extend_from_slice(data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A scripted client: what it sends, and what the server wrote back.
    struct Duplex {
        input: Cursor<Vec<u8>>,
        output: Vec<u8>,
    }

    impl Read for Duplex {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }

    impl Write for Duplex {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn export() -> Export {
        Export { name: String::new(), size_bytes: 1 << 30, block_bytes: 512 }
    }

    fn option(code: u32, data: &[u8]) -> Vec<u8> {
        let mut v = IHAVEOPT.to_be_bytes().to_vec();
        v.extend_from_slice(&code.to_be_bytes());
        v.extend_from_slice(&(data.len() as u32).to_be_bytes());
        v.extend_from_slice(data);
        v
    }

    fn run(client: Vec<u8>) -> (io::Result<Handshake>, Vec<u8>) {
        let mut d = Duplex { input: Cursor::new(client), output: Vec::new() };
        let r = handshake(&mut d, &export());
        (r, d.output)
    }

    /// The option replies in `out` after the 18-byte greeting: (option, reply type, data).
    fn replies(out: &[u8]) -> Vec<(u32, u32, Vec<u8>)> {
        let mut r = Cursor::new(&out[18..]);
        let mut list = Vec::new();
        while (r.position() as usize) < out.len() - 18 {
            assert_eq!(read_u64(&mut r).unwrap(), OPTION_REPLY_MAGIC);
            let (option, kind, len) = (read_u32(&mut r).unwrap(), read_u32(&mut r).unwrap(), read_u32(&mut r).unwrap());
            let mut data = vec![0; len as usize];
            r.read_exact(&mut data).unwrap();
            list.push((option, kind, data));
        }
        list
    }

    #[test]
    fn go_answers_the_export_and_block_sizes_then_transmits() {
        let mut client = 3u32.to_be_bytes().to_vec();
        let mut go = 0u32.to_be_bytes().to_vec();
        go.extend_from_slice(&0u16.to_be_bytes());
        client.extend(option(OPT_GO, &go));
        let (r, out) = run(client);
        assert!(matches!(r, Ok(Handshake::Transmission)));
        assert_eq!(&out[..8], b"NBDMAGIC");
        let got = replies(&out);
        assert_eq!(got.len(), 3);
        assert_eq!((got[0].0, got[0].1), (OPT_GO, REP_INFO));
        assert_eq!(&got[0].2[2..10], &(1u64 << 30).to_be_bytes());
        assert_eq!(u16::from_be_bytes([got[0].2[10], got[0].2[11]]), TRANSMISSION_FLAGS);
        assert_eq!(&got[1].2[..2], &INFO_BLOCK_SIZE.to_be_bytes());
        assert_eq!(u32::from_be_bytes(got[1].2[2..6].try_into().unwrap()), 512);
        assert_eq!(got[2].1, REP_ACK);
    }

    #[test]
    fn unknown_options_are_unsupported_and_parsing_goes_on() {
        let mut client = 3u32.to_be_bytes().to_vec();
        client.extend(option(8, &[])); // STRUCTURED_REPLY
        client.extend(option(OPT_LIST, &[]));
        client.extend(option(OPT_ABORT, &[]));
        let (r, out) = run(client);
        assert!(matches!(r, Ok(Handshake::Left)));
        let kinds: Vec<u32> = replies(&out).iter().map(|x| x.1).collect();
        assert_eq!(kinds, vec![REP_ERR_UNSUP, REP_SERVER, REP_ACK, REP_ACK]);
    }

    #[test]
    fn list_and_abort_with_data_are_invalid_and_negotiation_goes_on() {
        // Both were taken as if they had none before.
        let mut client = 3u32.to_be_bytes().to_vec();
        client.extend(option(OPT_LIST, b"x"));
        client.extend(option(OPT_ABORT, &[0, 0, 0, 0]));
        client.extend(option(OPT_LIST, &[]));
        client.extend(option(OPT_ABORT, &[]));
        let (r, out) = run(client);
        assert!(matches!(r, Ok(Handshake::Left)));
        let kinds: Vec<u32> = replies(&out).iter().map(|x| x.1).collect();
        assert_eq!(kinds, vec![REP_ERR_INVALID, REP_ERR_INVALID, REP_SERVER, REP_ACK, REP_ACK]);
    }

    #[test]
    fn an_unknown_export_is_refused_and_a_bad_flag_drops_the_client() {
        let mut client = 3u32.to_be_bytes().to_vec();
        let mut info = 3u32.to_be_bytes().to_vec();
        info.extend_from_slice(b"abc");
        info.extend_from_slice(&0u16.to_be_bytes());
        client.extend(option(OPT_INFO, &info));
        let (r, out) = run(client);
        assert!(matches!(r, Ok(Handshake::Left)));
        assert_eq!(replies(&out)[0].1, REP_ERR_UNKNOWN);
        assert!(run(0x80u32.to_be_bytes().to_vec()).0.is_err());
    }

    #[test]
    fn export_name_replies_size_and_flags_without_padding_when_asked() {
        let mut client = 3u32.to_be_bytes().to_vec();
        client.extend(option(OPT_EXPORT_NAME, b""));
        let (r, out) = run(client);
        assert!(matches!(r, Ok(Handshake::Transmission)));
        assert_eq!(out.len(), 18 + 10);
        let mut client = 1u32.to_be_bytes().to_vec();
        client.extend(option(OPT_EXPORT_NAME, b""));
        assert_eq!(run(client).1.len(), 18 + 10 + 124);
    }

    #[test]
    fn requests_parse_and_a_bad_magic_is_an_error() {
        let mut req = REQUEST_MAGIC.to_be_bytes().to_vec();
        req.extend_from_slice(&1u16.to_be_bytes());
        req.extend_from_slice(&1u16.to_be_bytes());
        req.extend_from_slice(&7u64.to_be_bytes());
        req.extend_from_slice(&4096u64.to_be_bytes());
        req.extend_from_slice(&512u32.to_be_bytes());
        let r = read_request(&mut Cursor::new(req.clone())).unwrap().unwrap();
        assert_eq!(r, Request { command: Command::Write, fua: true, cookie: 7, offset: 4096, length: 512 });
        assert!(read_request(&mut Cursor::new(Vec::new())).unwrap().is_none());
        req[0] = 0;
        assert!(read_request(&mut Cursor::new(req)).is_err());
    }

    #[test]
    fn simple_replies_carry_data_only_without_error() {
        assert_eq!(simple_reply(9, 0, b"ab").len(), 18);
        assert_eq!(simple_reply(9, EINVAL, b"ab").len(), 16);
    }
}
