//! The NBD protocol as the server speaks it (`NetworkBlockDevice/nbd`, `doc/proto.md`): the fixed
//! newstyle handshake with `OPT_GO`, `OPT_INFO`, `OPT_EXPORT_NAME`, `OPT_LIST`, `OPT_ABORT`,
//! `OPT_STRUCTURED_REPLY`, `OPT_LIST_META_CONTEXT` and `OPT_SET_META_CONTEXT` (the one
//! context is `base:allocation`; every other option is answered `ERR_UNSUP`), then replies to
//! READ, WRITE, FLUSH, TRIM, `WRITE_ZEROES`, `BLOCK_STATUS` and DISC: simple ones, or, once
//! structured replies are negotiated, structured ones where the spec asks for them (READ,
//! `BLOCK_STATUS` and errors). All integers are big-endian.

use std::io::{self, Read, Write};

const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
const REQUEST_MAGIC: u32 = 0x2560_9513;
const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;
const STRUCTURED_REPLY_MAGIC: u32 = 0x668e_33ef;

const FLAG_FIXED_NEWSTYLE: u16 = 1;
const FLAG_NO_ZEROES: u16 = 2;
const CLIENT_FLAGS_KNOWN: u32 = 0b11;

const OPT_EXPORT_NAME: u32 = 1;
const OPT_ABORT: u32 = 2;
const OPT_LIST: u32 = 3;
const OPT_INFO: u32 = 6;
const OPT_GO: u32 = 7;
const OPT_STRUCTURED_REPLY: u32 = 8;
const OPT_LIST_META_CONTEXT: u32 = 9;
const OPT_SET_META_CONTEXT: u32 = 10;

const REP_ACK: u32 = 1;
const REP_SERVER: u32 = 2;
const REP_INFO: u32 = 3;
const REP_META_CONTEXT: u32 = 4;
const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
const REP_ERR_INVALID: u32 = (1 << 31) + 3;
const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;

const INFO_EXPORT: u16 = 0;
const INFO_BLOCK_SIZE: u16 = 3;

/// Transmission flags: flags present, FLUSH, FUA, TRIM and `WRITE_ZEROES` accepted, and one
/// drive behind every connection (`CAN_MULTI_CONN`: every connection's requests go to one
/// store and one twin, in the order they arrive, so a reply to FLUSH or to a FUA write comes
/// after every write replied to before, whichever connection sent it).
const TRANSMISSION_FLAGS: u16 = 1 | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 6) | (1 << 8);
/// `NBD_FLAG_SEND_DF`, with structured replies only: a READ's data always comes in one chunk.
const FLAG_SEND_DF: u16 = 1 << 7;

/// The one metadata context, and its id on every connection that selects it.
const ALLOCATION: &str = "base:allocation";
const ALLOCATION_ID: u32 = 1;

/// `base:allocation`'s flags: the extent is not allocated, and it reads as zeros.
pub const STATE_HOLE: u32 = 1;
pub const STATE_ZERO: u32 = 2;

/// Command flags.
const CMD_FLAG_FUA: u16 = 1;
const CMD_FLAG_NO_HOLE: u16 = 1 << 1;
const CMD_FLAG_REQ_ONE: u16 = 1 << 3;

const REPLY_FLAG_DONE: u16 = 1;
const REPLY_TYPE_NONE: u16 = 0;
const REPLY_TYPE_OFFSET_DATA: u16 = 1;
const REPLY_TYPE_BLOCK_STATUS: u16 = 5;
const REPLY_TYPE_ERROR: u16 = (1 << 15) + 1;

/// Most extents in one block status reply (the spec asks for at most 2^20; fewer than asked
/// for is allowed, and clients ask again from where the reply ended).
pub const MAX_EXTENTS: usize = 1 << 16;

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

/// What a client negotiated in its handshake.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Session {
    /// `OPT_STRUCTURED_REPLY` was acknowledged: READ is answered in structured chunks.
    pub structured: bool,
    /// The id of `base:allocation` if the last `OPT_SET_META_CONTEXT` selected it: only then
    /// is `BLOCK_STATUS` answered.
    pub allocation: Option<u32>,
}

impl Session {
    fn transmission_flags(self) -> u16 {
        if self.structured { TRANSMISSION_FLAGS | FLAG_SEND_DF } else { TRANSMISSION_FLAGS }
    }
}

/// How a handshake ended.
#[derive(Debug)]
pub enum Handshake {
    /// The client chose the export: requests follow, framed as negotiated.
    Transmission(Session),
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
    BlockStatus,
    /// Any other type: answered `EINVAL`.
    Other(u16),
}

/// One request's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub command: Command,
    /// Force unit access: reply only once the data is on stable media.
    pub fua: bool,
    /// `WRITE_ZEROES`: the range must stay allocated (no hole may be made).
    pub no_hole: bool,
    /// `BLOCK_STATUS`: one extent only, no longer than `length`.
    pub req_one: bool,
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

/// `NBD_OPT_LIST_META_CONTEXT`/`NBD_OPT_SET_META_CONTEXT` data: the export name and the
/// queries.
fn parse_meta_request(data: &[u8]) -> Option<(String, Vec<String>)> {
    fn take<'a>(data: &'a [u8], at: &mut usize, n: usize) -> Option<&'a [u8]> {
        let piece = data.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(piece)
    }
    fn string(data: &[u8], at: &mut usize) -> Option<String> {
        let n = u32::from_be_bytes(take(data, at, 4)?.try_into().ok()?) as usize;
        Some(std::str::from_utf8(take(data, at, n)?).ok()?.to_string())
    }
    let mut at = 0;
    let name = string(data, &mut at)?;
    let n = u32::from_be_bytes(take(data, &mut at, 4)?.try_into().ok()?);
    // Each query takes at least its 4-byte length: a count beyond that is a lie.
    if u64::from(n) * 4 > (data.len() - at) as u64 {
        return None;
    }
    let queries = (0..n).map(|_| string(data, &mut at)).collect::<Option<Vec<_>>>()?;
    (at == data.len()).then_some((name, queries))
}

/// `NBD_OPT_LIST_META_CONTEXT` and `NBD_OPT_SET_META_CONTEXT`: the one context is
/// `base:allocation`. SET needs structured replies, and replaces the selection even when it
/// fails.
fn meta_context(
    stream: &mut impl Write,
    option: u32,
    data: &[u8],
    export: &Export,
    session: &mut Session,
) -> io::Result<()> {
    let set = option == OPT_SET_META_CONTEXT;
    if set {
        session.allocation = None;
        if !session.structured {
            return option_reply(stream, option, REP_ERR_INVALID, b"structured replies are not negotiated");
        }
    }
    let Some((name, queries)) = parse_meta_request(data) else {
        return option_reply(stream, option, REP_ERR_INVALID, &[]);
    };
    if name != export.name {
        return option_reply(stream, option, REP_ERR_UNKNOWN, b"no such export");
    }
    // LIST with no query lists every context, and "base:" the namespace's; SET selects only
    // by the full name. Other queries match nothing.
    let found = if set {
        queries.iter().any(|q| q == ALLOCATION)
    } else {
        queries.is_empty() || queries.iter().any(|q| q == ALLOCATION || q == "base:")
    };
    if found {
        // LIST's ids are reserved (zero); SET's are the one BLOCK_STATUS replies carry.
        let id = if set { ALLOCATION_ID } else { 0 };
        let mut context = id.to_be_bytes().to_vec();
        context.extend_from_slice(ALLOCATION.as_bytes());
        option_reply(stream, option, REP_META_CONTEXT, &context)?;
        if set {
            session.allocation = Some(id);
        }
    }
    option_reply(stream, option, REP_ACK, &[])
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
    let mut session = Session::default();
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
                out.extend_from_slice(&session.transmission_flags().to_be_bytes());
                if !no_zeroes {
                    out.extend_from_slice(&[0; 124]);
                }
                stream.write_all(&out)?;
                return Ok(Handshake::Transmission(session));
            }
            // The spec gives these three no data: with some, the option is invalid (the
            // client is answered, and negotiation goes on).
            OPT_ABORT | OPT_LIST | OPT_STRUCTURED_REPLY if !data.is_empty() => {
                option_reply(stream, option, REP_ERR_INVALID, &[])?;
            }
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
            OPT_STRUCTURED_REPLY => {
                session.structured = true;
                option_reply(stream, option, REP_ACK, &[])?;
            }
            OPT_LIST_META_CONTEXT | OPT_SET_META_CONTEXT => meta_context(stream, option, &data, export, &mut session)?,
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
                info.extend_from_slice(&session.transmission_flags().to_be_bytes());
                option_reply(stream, option, REP_INFO, &info)?;
                let mut sizes = INFO_BLOCK_SIZE.to_be_bytes().to_vec();
                sizes.extend_from_slice(&export.block_bytes.to_be_bytes());
                sizes.extend_from_slice(&export.block_bytes.max(4096).to_be_bytes());
                sizes.extend_from_slice(&MAX_PAYLOAD_BYTES.to_be_bytes());
                option_reply(stream, option, REP_INFO, &sizes)?;
                option_reply(stream, option, REP_ACK, &[])?;
                if option == OPT_GO {
                    return Ok(Handshake::Transmission(session));
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
        7 => Command::BlockStatus,
        other => Command::Other(other),
    };
    Ok(Some(Request {
        command,
        fua: flags & CMD_FLAG_FUA != 0,
        no_hole: flags & CMD_FLAG_NO_HOLE != 0,
        req_one: flags & CMD_FLAG_REQ_ONE != 0,
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

/// The header of a structured reply's final chunk, with room for its `payload_len` bytes.
fn final_chunk(kind: u16, cookie: u64, payload_len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(20 + payload_len);
    out.extend_from_slice(&STRUCTURED_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&REPLY_FLAG_DONE.to_be_bytes());
    out.extend_from_slice(&kind.to_be_bytes());
    out.extend_from_slice(&cookie.to_be_bytes());
    out.extend_from_slice(&(payload_len as u32).to_be_bytes());
    out
}

/// The reply to a request, framed as `session` negotiated; `read_at` is a READ's offset.
///
/// Without structured replies, a simple reply. With them, a READ gets one chunk, marked
/// final: its data (`OFFSET_DATA`; the server never splits a read, so `NBD_CMD_FLAG_DF`
/// always holds), `NONE` for a read of no bytes, or `ERROR`. Errors to other commands are
/// `ERROR` chunks too (the spec prefers them); their successes, which carry no data, keep the
/// simple reply the spec allows.
pub fn reply(session: &Session, read_at: Option<u64>, cookie: u64, error: u32, data: &[u8]) -> Vec<u8> {
    if !session.structured {
        return simple_reply(cookie, error, data);
    }
    if error != 0 {
        let mut out = final_chunk(REPLY_TYPE_ERROR, cookie, 6);
        out.extend_from_slice(&error.to_be_bytes());
        out.extend_from_slice(&0u16.to_be_bytes());
        return out;
    }
    match read_at {
        Some(_) if data.is_empty() => final_chunk(REPLY_TYPE_NONE, cookie, 0),
        Some(offset) => {
            let mut out = final_chunk(REPLY_TYPE_OFFSET_DATA, cookie, 8 + data.len());
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(data);
            out
        }
        None => simple_reply(cookie, 0, &[]),
    }
}

/// The reply to `BLOCK_STATUS`: one final `BLOCK_STATUS` chunk for metadata context `context`,
/// its extents as `(length, flags)` from the request's offset on (at least one).
pub fn block_status_reply(cookie: u64, context: u32, extents: &[(u32, u32)]) -> Vec<u8> {
    let mut out = final_chunk(REPLY_TYPE_BLOCK_STATUS, cookie, 4 + 8 * extents.len());
    out.extend_from_slice(&context.to_be_bytes());
    for (length, flags) in extents {
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(&flags.to_be_bytes());
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
        assert!(matches!(r, Ok(Handshake::Transmission(s)) if s == Session::default()));
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
        client.extend(option(11, &[])); // EXTENDED_HEADERS
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
        assert!(matches!(r, Ok(Handshake::Transmission(s)) if s == Session::default()));
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
        assert_eq!(
            r,
            Request {
                command: Command::Write,
                fua: true,
                no_hole: false,
                req_one: false,
                cookie: 7,
                offset: 4096,
                length: 512
            }
        );
        assert!(read_request(&mut Cursor::new(Vec::new())).unwrap().is_none());
        req[0] = 0;
        assert!(read_request(&mut Cursor::new(req)).is_err());
    }

    fn meta(name: &str, queries: &[&str]) -> Vec<u8> {
        let mut v = (name.len() as u32).to_be_bytes().to_vec();
        v.extend_from_slice(name.as_bytes());
        v.extend_from_slice(&(queries.len() as u32).to_be_bytes());
        for q in queries {
            v.extend_from_slice(&(q.len() as u32).to_be_bytes());
            v.extend_from_slice(q.as_bytes());
        }
        v
    }

    fn context(id: u32) -> Vec<u8> {
        let mut v = id.to_be_bytes().to_vec();
        v.extend_from_slice(b"base:allocation");
        v
    }

    #[test]
    fn structured_replies_and_base_allocation_are_negotiated_then_go_adds_df() {
        let mut client = 3u32.to_be_bytes().to_vec();
        client.extend(option(OPT_STRUCTURED_REPLY, &[]));
        client.extend(option(OPT_LIST_META_CONTEXT, &meta("", &[])));
        client.extend(option(OPT_LIST_META_CONTEXT, &meta("", &["base:"])));
        client.extend(option(OPT_LIST_META_CONTEXT, &meta("", &["x-other:thing", "qemu:dirty-bitmap:a"])));
        // "base:" selects nothing in SET, unknown names are ignored.
        client.extend(option(OPT_SET_META_CONTEXT, &meta("", &["base:", "x-other:thing", "base:allocation"])));
        let mut go = 0u32.to_be_bytes().to_vec();
        go.extend_from_slice(&0u16.to_be_bytes());
        client.extend(option(OPT_GO, &go));
        let (r, out) = run(client);
        let session = Session { structured: true, allocation: Some(1) };
        assert!(matches!(r, Ok(Handshake::Transmission(s)) if s == session), "{r:?}");
        let got = replies(&out);
        let expected: Vec<(u32, u32, Vec<u8>)> = vec![
            (8, 1, vec![]),
            (9, 4, context(0)),
            (9, 1, vec![]),
            (9, 4, context(0)),
            (9, 1, vec![]),
            (9, 1, vec![]),
            (10, 4, context(1)),
            (10, 1, vec![]),
        ];
        assert_eq!(got[..8], expected[..]);
        assert_eq!((got[8].0, got[8].1), (OPT_GO, REP_INFO));
        // NBD_FLAG_SEND_DF (bit 7) joins the flags.
        assert_eq!(&got[8].2[10..12], &[0x01, 0xed]);
        assert_eq!(got.len(), 11);
    }

    #[test]
    fn set_meta_context_needs_structured_replies_and_a_failed_set_clears_the_selection() {
        let mut client = 3u32.to_be_bytes().to_vec();
        client.extend(option(OPT_SET_META_CONTEXT, &meta("", &["base:allocation"])));
        client.extend(option(OPT_STRUCTURED_REPLY, b"x"));
        client.extend(option(OPT_STRUCTURED_REPLY, &[]));
        client.extend(option(OPT_SET_META_CONTEXT, &meta("", &["base:allocation"])));
        client.extend(option(OPT_SET_META_CONTEXT, &meta("other", &["base:allocation"])));
        // A query count the data cannot hold, and a query length past the end.
        let mut lying = meta("", &[]);
        lying[4..8].copy_from_slice(&1000u32.to_be_bytes());
        client.extend(option(OPT_LIST_META_CONTEXT, &lying));
        let mut short = meta("", &["base:allocation"]);
        short.pop();
        client.extend(option(OPT_SET_META_CONTEXT, &short));
        client.extend(option(OPT_EXPORT_NAME, b""));
        let (r, out) = run(client);
        let session = Session { structured: true, allocation: None };
        assert!(matches!(r, Ok(Handshake::Transmission(s)) if s == session), "{r:?}");
        let kinds: Vec<(u32, u32)> = replies(&out[..out.len() - 10]).iter().map(|x| (x.0, x.1)).collect();
        assert_eq!(
            kinds,
            vec![
                (10, REP_ERR_INVALID),
                (8, REP_ERR_INVALID),
                (8, REP_ACK),
                (10, REP_META_CONTEXT),
                (10, REP_ACK),
                (10, REP_ERR_UNKNOWN),
                (9, REP_ERR_INVALID),
                (10, REP_ERR_INVALID),
            ]
        );
        // EXPORT_NAME's flags carry DF too.
        assert_eq!(&out[out.len() - 2..], &[0x01, 0xed]);
    }

    #[test]
    fn block_status_requests_parse_with_req_one_and_no_hole() {
        let mut req = REQUEST_MAGIC.to_be_bytes().to_vec();
        req.extend_from_slice(&(CMD_FLAG_REQ_ONE | CMD_FLAG_NO_HOLE).to_be_bytes());
        req.extend_from_slice(&7u16.to_be_bytes());
        req.extend_from_slice(&[0; 8]);
        req.extend_from_slice(&8192u64.to_be_bytes());
        req.extend_from_slice(&4096u32.to_be_bytes());
        let r = read_request(&mut Cursor::new(req)).unwrap().unwrap();
        assert_eq!((r.command, r.req_one, r.no_hole, r.fua), (Command::BlockStatus, true, true, false));
    }

    #[test]
    fn structured_read_replies_are_one_final_chunk_and_other_successes_stay_simple() {
        let structured = Session { structured: true, allocation: None };
        let data = reply(&structured, Some(0x1000), 0x0102, 0, b"ab");
        #[rustfmt::skip]
        let expected = [
            0x66, 0x8e, 0x33, 0xef, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 10,
            0, 0, 0, 0, 0, 0, 0x10, 0, b'a', b'b',
        ];
        assert_eq!(data, expected);
        #[rustfmt::skip]
        let error = [0x66, 0x8e, 0x33, 0xef, 0, 1, 0x80, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 6, 0, 0, 0, 22, 0, 0];
        assert_eq!(reply(&structured, Some(0), 9, EINVAL, &[]), error);
        assert_eq!(reply(&structured, None, 9, EINVAL, &[]), error);
        let none = [0x66, 0x8e, 0x33, 0xef, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0];
        assert_eq!(reply(&structured, Some(0), 9, 0, &[]), none);
        assert_eq!(reply(&structured, None, 9, 0, &[]), simple_reply(9, 0, &[]));
        assert_eq!(reply(&Session::default(), Some(0), 9, 0, b"ab"), simple_reply(9, 0, b"ab"));
        assert_eq!(reply(&Session::default(), Some(0), 9, EINVAL, b"ab"), simple_reply(9, EINVAL, &[]));
    }

    #[test]
    fn block_status_replies_list_the_extents_of_one_context() {
        let got = block_status_reply(5, 1, &[(4096, STATE_HOLE | STATE_ZERO), (512, 0)]);
        #[rustfmt::skip]
        let expected = [
            0x66, 0x8e, 0x33, 0xef, 0, 1, 0, 5, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 20,
            0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 0, 3, 0, 0, 2, 0, 0, 0, 0, 0,
        ];
        assert_eq!(got, expected);
    }

    #[test]
    fn simple_replies_carry_data_only_without_error() {
        assert_eq!(simple_reply(9, 0, b"ab").len(), 18);
        assert_eq!(simple_reply(9, EINVAL, b"ab").len(), 16);
    }
}
