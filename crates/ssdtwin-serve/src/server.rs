//! The server: a listener thread accepts connections, one thread per connection runs the
//! handshake and reads requests, and the caller's thread runs the twin in wall-clock time.
//!
//! Time: simulated time runs `time_scale` times slower than wall time from the moment the
//! server starts (`sim = sim0 + (wall − wall0) / K`). A request is submitted to the twin at
//! the simulated time of its arrival (or, if the twin's clock has already passed that, at
//! the twin's present: the *submit delay*); events are processed in order as their wall
//! time comes, the thread sleeping until shortly before the next one and spinning the rest;
//! a reply is written when the twin completes its command. *Lateness* is how long after its
//! due wall time a reply was written.
//!
//! Once a wall second the twin's thread pushes a snapshot of the last second to a
//! [`Live`] ring (see [`crate::live`]), and applies a time scale another thread asked for
//! while no command is in flight, re-anchoring the mapping at that instant.

use crate::live::Live;
use crate::protocol::{self, Command, EINVAL, ENOSPC, Export, Handshake, MAX_PAYLOAD_BYTES, Request};
use crate::stats::{ServeStats, Tally};
use crate::store::Store;
use ssdtwin_core::block::CounterRow;
use ssdtwin_core::block::{BlockDevice, Opcode};
use ssdtwin_core::engine::SimTime;
use ssdtwin_core::os::{CompletionPath, Host, IoRequest};
use ssdtwin_core::stats::PlatHistogram;
use ssdtwin_core::workload::trace::{IologWriter, TraceOp};
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// Sleep until this long before an event, then spin: a sleeping thread wakes tens of µs
/// late on a busy machine.
const SPIN_BEFORE: Duration = Duration::from_micros(100);
/// A reply this much after its due time counts as late (FEMU's threshold).
const LATE: Duration = Duration::from_micros(20);
/// How often an idle server looks at the stop flag.
const IDLE_CHECK: Duration = Duration::from_millis(20);
/// How often a snapshot goes to the live ring.
const SNAPSHOT_EVERY: Duration = Duration::from_secs(1);

/// Where the server listens.
#[derive(Clone, Debug)]
pub enum Listen {
    /// A Unix socket at this path.
    Unix(PathBuf),
    /// A TCP address (the CLI defaults the host to 127.0.0.1).
    Tcp(SocketAddr),
}

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub listen: Listen,
    /// The export's name (clients that give none ask for "").
    pub export_name: String,
    /// Simulated time runs this many times slower than wall time.
    pub time_scale: f64,
    /// Keep the data in this file (made as large as the export) instead of memory.
    pub data: Option<PathBuf>,
    /// Most bytes of written data kept in memory (without `data`); writes beyond it fail
    /// with ENOSPC.
    pub memory_limit_bytes: u64,
    /// Write every request as a fio iolog version 3 here.
    pub record: Option<PathBuf>,
    /// Replace an existing socket file.
    pub force: bool,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("cannot listen on {what}: {reason}")]
    Listen { what: String, reason: String },
}

/// A connection's byte stream.
enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }

    fn shutdown(&self) {
        // The peer may be gone already.
        let _ = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
        };
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

enum Listener {
    Unix { listener: UnixListener, _file: SocketFile },
    Tcp(TcpListener),
}

/// A Unix socket's file, removed when the listener goes.
struct SocketFile(PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What connection threads tell the twin's thread.
enum Message {
    /// A client finished its handshake; replies go to `writer`, framed as `session` says.
    Open { conn: u32, writer: Stream, session: protocol::Session },
    /// A request (with a WRITE's payload), stamped when its header arrived.
    Request { conn: u32, request: Request, payload: Vec<u8>, arrived: Instant, too_long: bool },
    /// The client disconnected or broke the protocol.
    Closed { conn: u32 },
}

/// A request the twin is working on.
struct Pending {
    conn: u32,
    cookie: u64,
    /// What the client asked for, and when it reached the twin (for the live latencies).
    op: Opcode,
    submitted: SimTime,
    /// A READ's range, to read the data when it completes.
    read: Option<(u64, u32)>,
    /// A FUA write: a flush follows before the reply.
    then_flush: bool,
}

struct Conn {
    writer: Stream,
    session: protocol::Session,
    /// With structured replies: the offsets of the READs not yet replied to, by cookie.
    reads: HashMap<u64, u64>,
    outstanding: u32,
    closing: bool,
    broken: bool,
}

/// A bound server, ready to run.
pub struct Server {
    listener: Listener,
    config: ServeConfig,
    uri: String,
    /// Set by SIGINT or SIGTERM from the bind on: whoever was told the URI may stop the
    /// server (Ctrl-C) before it runs, and that must not be missed.
    signalled_early: SignalFlag,
}

/// A flag SIGINT and SIGTERM set while this lives.
struct SignalFlag {
    flag: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl SignalFlag {
    fn register(flag: &Arc<AtomicBool>) -> Self {
        let ids = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM]
            .into_iter()
            .filter_map(|signal| signal_hook::flag::register(signal, Arc::clone(flag)).ok())
            .collect();
        SignalFlag { flag: Arc::clone(flag), ids }
    }
}

impl Drop for SignalFlag {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

impl Server {
    /// Binds the listening socket. From then on SIGINT and SIGTERM stop the server (one
    /// that comes before [`Server::run`] stops it as soon as it starts).
    pub fn bind(config: ServeConfig) -> Result<Self, ServeError> {
        let (listener, uri) = match &config.listen {
            Listen::Unix(path) => {
                if path.exists() {
                    if !config.force {
                        return Err(ServeError::Listen {
                            what: path.display().to_string(),
                            reason: "the file exists; remove it or give --force".into(),
                        });
                    }
                    std::fs::remove_file(path).map_err(|e| ServeError::Listen {
                        what: path.display().to_string(),
                        reason: format!("cannot remove the old socket: {e}"),
                    })?;
                }
                let l = UnixListener::bind(path)
                    .map_err(|e| ServeError::Listen { what: path.display().to_string(), reason: e.to_string() })?;
                (
                    Listener::Unix { listener: l, _file: SocketFile(path.clone()) },
                    format!("nbd+unix:///{}?socket={}", config.export_name, path.display()),
                )
            }
            Listen::Tcp(addr) => {
                let l = TcpListener::bind(addr)
                    .map_err(|e| ServeError::Listen { what: addr.to_string(), reason: e.to_string() })?;
                let bound =
                    l.local_addr().map_err(|e| ServeError::Listen { what: addr.to_string(), reason: e.to_string() })?;
                (Listener::Tcp(l), format!("nbd://{bound}/{}", config.export_name))
            }
        };
        let signalled_early = SignalFlag::register(&Arc::new(AtomicBool::new(false)));
        Ok(Server { listener, config, uri, signalled_early })
    }

    /// The NBD URI clients connect to.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Serves `host`'s device until `stop` is set (or SIGINT/SIGTERM arrives), pushing a
    /// snapshot a second to `live` (and taking time-scale requests from it) if given.
    pub fn run<D: BlockDevice>(
        self,
        host: &mut Host<D>,
        stop: &Arc<AtomicBool>,
        live: Option<&Live>,
    ) -> Result<ServeStats, ServeError> {
        let geometry = host.device().geometry();
        let export = Export {
            name: self.config.export_name.clone(),
            size_bytes: geometry.capacity_bytes(),
            block_bytes: geometry.lba_bytes as u32,
        };
        let mut store = match &self.config.data {
            None => Store::memory(self.config.memory_limit_bytes),
            Some(path) => {
                let bad = |e: io::Error| ServeError::File { path: path.display().to_string(), reason: e.to_string() };
                let f = std::fs::File::options()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(path)
                    .map_err(bad)?;
                f.set_len(export.size_bytes).map_err(bad)?;
                Store::File(f)
            }
        };
        let mut record = match &self.config.record {
            None => None,
            // `--record` goes to /dev/nvme0n1, so that a replay in `ssdtwin fio` addresses
            // the namespace.
            Some(path) => Some(
                IologWriter::create(path, "/dev/nvme0n1", false)
                    .map_err(|e| ServeError::File { path: path.display().to_string(), reason: e.to_string() })?,
            ),
        };
        // The signals now set `stop`, and one that came since the bind has set it.
        let signals = SignalFlag::register(stop);
        if self.signalled_early.flag.load(Ordering::SeqCst) {
            stop.store(true, Ordering::SeqCst);
        }
        drop(self.signalled_early);
        let (tx, rx) = mpsc::channel();
        let acceptor = spawn_acceptor(self.listener, export.clone(), tx, Arc::clone(stop));
        let mut twin = Twin {
            host,
            store: &mut store,
            record: record.as_mut(),
            wall0: Instant::now(),
            sim0: SimTime::ZERO,
            anchor: (Instant::now(), SimTime::ZERO),
            scale: self.config.time_scale,
            live,
            interval: Interval::default(),
            last_snapshot: (Instant::now(), SimTime::ZERO),
            floor: SimTime::ZERO,
            conns: HashMap::new(),
            pending: HashMap::new(),
            next_tag: 0,
            export,
            stats: ServeStats::default(),
        };
        twin.sim0 = twin.host.device().now();
        twin.floor = twin.sim0;
        twin.anchor = (twin.wall0, twin.sim0);
        twin.last_snapshot = (twin.wall0, twin.sim0);
        twin.serve(&rx, stop);
        drop(signals);
        stop.store(true, Ordering::SeqCst);
        for c in twin.conns.values() {
            c.writer.shutdown();
        }
        let mut stats = twin.finish();
        stats.data_memory_bytes = store.memory_bytes();
        // Dropping the listener removes a Unix socket's file.
        drop(acceptor.join());
        if let Some(r) = record {
            r.finish().map_err(|e| ServeError::File {
                path: self.config.record.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                reason: e.to_string(),
            })?;
        }
        Ok(stats)
    }
}

/// Accepts connections until `stop`; each gets a thread for its handshake and requests.
/// Returns the listener, so the caller can remove a Unix socket's file.
fn spawn_acceptor(
    listener: Listener,
    export: Export,
    tx: Sender<Message>,
    stop: Arc<AtomicBool>,
) -> thread::JoinHandle<Listener> {
    thread::spawn(move || {
        let _ = match &listener {
            Listener::Unix { listener, .. } => listener.set_nonblocking(true),
            Listener::Tcp(l) => l.set_nonblocking(true),
        };
        let mut next_conn = 0u32;
        while !stop.load(Ordering::SeqCst) {
            let accepted = match &listener {
                Listener::Unix { listener, .. } => listener.accept().map(|(s, _)| Stream::Unix(s)),
                Listener::Tcp(l) => l.accept().map(|(s, _)| {
                    let _ = s.set_nodelay(true);
                    Stream::Tcp(s)
                }),
            };
            match accepted {
                Ok(stream) => {
                    let (conn, export, tx) = (next_conn, export.clone(), tx.clone());
                    next_conn += 1;
                    thread::spawn(move || connection(stream, conn, &export, &tx));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => thread::sleep(Duration::from_millis(5)),
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
        listener
    })
}

/// One client: the handshake, then its requests to the twin's thread.
fn connection(mut stream: Stream, conn: u32, export: &Export, tx: &Sender<Message>) {
    let blocking = match &stream {
        Stream::Unix(s) => s.set_nonblocking(false),
        Stream::Tcp(s) => s.set_nonblocking(false),
    };
    let Ok(Handshake::Transmission(session)) = blocking.and_then(|()| protocol::handshake(&mut stream, export)) else {
        stream.shutdown();
        return;
    };
    let Ok(writer) = stream.try_clone() else { return };
    if tx.send(Message::Open { conn, writer, session }).is_err() {
        return;
    }
    // The connection ends at the end of its stream without DISC (fio's nbd engine closes so)
    // or at a broken request.
    while let Ok(Some(request)) = protocol::read_request(&mut stream) {
        let arrived = Instant::now();
        if request.command == Command::Disconnect {
            break;
        }
        let mut payload = Vec::new();
        let mut too_long = false;
        if request.command == Command::Write {
            if request.length > MAX_PAYLOAD_BYTES {
                // Read it through in pieces (memory stays bounded), then refuse it.
                too_long = true;
                if io::copy(&mut (&mut stream).take(u64::from(request.length)), &mut io::sink()).is_err() {
                    break;
                }
            } else {
                payload = vec![0; request.length as usize];
                if stream.read_exact(&mut payload).is_err() {
                    break;
                }
            }
        }
        if tx.send(Message::Request { conn, request, payload, arrived, too_long }).is_err() {
            return;
        }
    }
    let _ = tx.send(Message::Closed { conn });
}

/// The twin's side: its host, the data, the connections and the requests in flight.
struct Twin<'a, 'h, D: BlockDevice> {
    host: &'h mut Host<D>,
    store: &'a mut Store,
    record: Option<&'a mut IologWriter>,
    wall0: Instant,
    sim0: SimTime,
    /// The instant simulated time is mapped from: `sim = anchor.1 + (wall − anchor.0) / K`
    /// (the start, or the last change of the time scale).
    anchor: (Instant, SimTime),
    scale: f64,
    live: Option<&'a Live>,
    /// What happened since the last snapshot.
    interval: Interval,
    last_snapshot: (Instant, SimTime),
    /// The twin's present: nothing may be submitted before it.
    floor: SimTime,
    conns: HashMap<u32, Conn>,
    pending: HashMap<u64, Pending>,
    next_tag: u64,
    export: Export,
    stats: ServeStats,
}

impl<D: BlockDevice> Twin<'_, '_, D> {
    fn to_sim(&self, wall: Instant) -> SimTime {
        let since = wall.saturating_duration_since(self.anchor.0).as_nanos() as f64;
        SimTime(self.anchor.1.as_ns() + (since / self.scale) as u64)
    }

    fn to_wall(&self, sim: SimTime) -> Instant {
        self.anchor.0
            + Duration::from_nanos((sim.as_ns().saturating_sub(self.anchor.1.as_ns()) as f64 * self.scale) as u64)
    }

    /// Once a second: a snapshot to the live ring; and a time scale asked for, applied when
    /// nothing is in flight (a command's due time keeps the scale it was submitted under).
    fn tend_live(&mut self) {
        let Some(live) = self.live else { return };
        let now = Instant::now();
        if self.pending.is_empty()
            && let Some(k) = live.take_time_scale()
        {
            let sim = self.to_sim(now);
            self.advance_to(sim);
            self.anchor = (now, self.floor);
            self.scale = k;
        }
        if now.saturating_duration_since(self.last_snapshot.0) >= SNAPSHOT_EVERY {
            let sim = self.to_sim(now);
            self.advance_to(sim);
            live.push(self.snapshot(now).to_string());
            self.interval = Interval::default();
            self.last_snapshot = (now, self.floor);
        }
    }

    /// The last interval and the totals so far, as the live ring holds them.
    fn snapshot(&self, now: Instant) -> serde_json::Value {
        let i = &self.interval;
        let mut drive = CounterRow::at(self.floor.as_ns());
        self.host.device().counters("", &mut drive);
        let counters: serde_json::Map<String, serde_json::Value> =
            drive.entries.iter().map(|c| (c.name.clone(), c.value.into())).collect();
        let levels: Vec<&str> = drive.entries.iter().filter(|c| c.level).map(|c| c.name.as_str()).collect();
        let (_, late_p99, late_max) = i.lateness.summary();
        serde_json::json!({
            "wall_s": now.saturating_duration_since(self.wall0).as_secs_f64(),
            "sim_s": (self.floor.as_ns() - self.sim0.as_ns()) as f64 * 1e-9,
            "interval_wall_s": now.saturating_duration_since(self.last_snapshot.0).as_secs_f64(),
            "interval_sim_s": (self.floor.as_ns() - self.last_snapshot.1.as_ns()) as f64 * 1e-9,
            "time_scale": self.scale,
            "ops": {
                "read": i.read.json(),
                "write": i.write.json(),
                "trim": i.trim.json(),
                "flush": i.flush.json(),
            },
            "in_flight": self.pending.len(),
            "max_in_flight": i.max_in_flight,
            "replies": i.replies,
            "late_replies": i.late_replies,
            "lateness_p99_us": late_p99 as f64 / 1e3,
            "lateness_max_us": late_max as f64 / 1e3,
            "totals": self.stats.counts(),
            "drive": counters,
            // Counters that are levels at an instant (bytes cached, free superblocks), not totals.
            "drive_levels": levels,
        })
    }

    /// Runs until `stop`: messages as they come, events as their time comes.
    fn serve(&mut self, rx: &Receiver<Message>, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            let now = self.to_sim(Instant::now());
            self.advance_to(now);
            let next = self.host.poll_at();
            let wait = if next == SimTime::NEVER {
                IDLE_CHECK
            } else {
                self.to_wall(next).saturating_duration_since(Instant::now()).min(IDLE_CHECK)
            };
            if let Some(sleep) = wait.checked_sub(SPIN_BEFORE).filter(|d| !d.is_zero()) {
                match rx.recv_timeout(sleep) {
                    Ok(m) => self.handle(m),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            } else {
                let until = Instant::now() + wait;
                while Instant::now() < until {
                    if let Ok(m) = rx.try_recv() {
                        self.handle(m);
                        break;
                    }
                    std::hint::spin_loop();
                }
            }
            while let Ok(m) = rx.try_recv() {
                self.handle(m);
            }
            self.tend_live();
        }
    }

    /// Processes every event up to `t` and moves the twin's present there.
    fn advance_to(&mut self, t: SimTime) {
        while self.host.poll_at() <= t {
            if let Some(done) = self.host.poll() {
                self.completed(done.tag, done.visible);
            }
        }
        self.floor = self.floor.max(t);
    }

    fn handle(&mut self, m: Message) {
        match m {
            Message::Open { conn, writer, session } => {
                self.stats.connections += 1;
                let c = Conn { writer, session, reads: HashMap::new(), outstanding: 0, closing: false, broken: false };
                self.conns.insert(conn, c);
            }
            Message::Closed { conn } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.closing = true;
                    if c.outstanding == 0 {
                        c.writer.shutdown();
                        self.conns.remove(&conn);
                    }
                }
            }
            Message::Request { conn, request, payload, arrived, too_long } => {
                self.request(conn, request, &payload, arrived, too_long);
            }
        }
    }

    /// Checks a request, applies its data, and submits it to the twin.
    fn request(&mut self, conn: u32, r: Request, payload: &[u8], arrived: Instant, too_long: bool) {
        self.stats.requests += 1;
        if let Some(c) = self.conns.get_mut(&conn).filter(|c| c.session.structured && r.command == Command::Read) {
            c.reads.insert(r.cookie, r.offset);
        }
        let arrival = self.to_sim(arrived);
        self.advance_to(arrival.min(self.to_sim(Instant::now())));
        let at = arrival.max(self.floor);
        self.stats.submit_delay.record(at.as_ns() - arrival.as_ns());
        let block = u64::from(self.export.block_bytes);
        let (offset, len) = (r.offset, u64::from(r.length));
        let in_range = offset.checked_add(len).is_some_and(|end| end <= self.export.size_bytes);
        let aligned = offset % block == 0 && len % block == 0;
        let (opcode, bytes) = match r.command {
            Command::Read | Command::Write if too_long || r.length > MAX_PAYLOAD_BYTES || !in_range || !aligned => {
                return self.reply_now(conn, r.cookie, EINVAL, &[]);
            }
            Command::Trim | Command::WriteZeroes if !in_range => return self.reply_now(conn, r.cookie, EINVAL, &[]),
            Command::Read | Command::Write if len == 0 => return self.reply_now(conn, r.cookie, 0, &[]),
            Command::Read => (Opcode::Read, len),
            Command::Write => {
                match self.store.write(offset, payload) {
                    Ok(Ok(())) => {}
                    Ok(Err(_full)) => return self.reply_now(conn, r.cookie, ENOSPC, &[]),
                    Err(_) => return self.reply_now(conn, r.cookie, protocol::EIO, &[]),
                }
                (Opcode::Write, len)
            }
            Command::Trim | Command::WriteZeroes => {
                // `NO_HOLE` asks that the range stay allocated.
                if self.store.zero(offset, len, !(r.command == Command::WriteZeroes && r.no_hole)).is_err() {
                    return self.reply_now(conn, r.cookie, protocol::EIO, &[]);
                }
                // The drive deallocates the whole blocks inside the range (a deallocated
                // block reads as zeros); the store has zeroed the rest.
                let start = offset.next_multiple_of(block);
                let end = (offset + len) / block * block;
                if end <= start {
                    return self.reply_now(conn, r.cookie, 0, &[]);
                }
                return self.submit(conn, r, Opcode::Trim, start, end - start, at);
            }
            Command::Flush => (Opcode::Flush, 0),
            Command::BlockStatus => return self.block_status(conn, r),
            Command::Disconnect | Command::Other(_) => return self.reply_now(conn, r.cookie, EINVAL, &[]),
        };
        self.submit(conn, r, opcode, offset, bytes, at);
    }

    /// `BLOCK_STATUS`: the store's data and holes from the request's offset, answered at once
    /// (the server's own metadata: the twin spends no time on it). Only for a client that
    /// selected `base:allocation`, within the export.
    fn block_status(&mut self, conn: u32, r: Request) {
        let len = u64::from(r.length);
        let in_range = r.offset.checked_add(len).is_some_and(|end| end <= self.export.size_bytes);
        let context = self.conns.get(&conn).and_then(|c| c.session.allocation);
        let Some(context) = context.filter(|_| in_range && len > 0) else {
            return self.reply_now(conn, r.cookie, EINVAL, &[]);
        };
        self.stats.block_status += 1;
        let max = if r.req_one { 1 } else { protocol::MAX_EXTENTS };
        let hole = protocol::STATE_HOLE | protocol::STATE_ZERO;
        // Each run lies within the request, so its length fits the descriptor's 32 bits.
        let extents: Vec<(u32, u32)> = self
            .store
            .extents(r.offset, len, max)
            .iter()
            .map(|e| (e.bytes as u32, if e.hole { hole } else { 0 }))
            .collect();
        self.write_reply(conn, &protocol::block_status_reply(r.cookie, context, &extents));
    }

    fn submit(&mut self, conn: u32, r: Request, opcode: Opcode, offset: u64, bytes: u64, at: SimTime) {
        if let Some(rec) = self.record.as_deref_mut() {
            let us = at.as_ns().saturating_sub(self.sim0.as_ns()) / 1000;
            let op = match opcode {
                Opcode::Read => TraceOp::Read,
                Opcode::Write => TraceOp::Write,
                Opcode::Trim => TraceOp::Trim,
                Opcode::Flush => TraceOp::Sync,
                Opcode::ZoneAppend | Opcode::ZoneSend { .. } => unreachable!("NBD requests map to no zoned command"),
            };
            rec.record(us, op, offset, bytes);
        }
        match opcode {
            Opcode::Read => {
                (self.stats.reads, self.stats.bytes_read) = (self.stats.reads + 1, self.stats.bytes_read + bytes);
            }
            Opcode::Write => {
                (self.stats.writes, self.stats.bytes_written) =
                    (self.stats.writes + 1, self.stats.bytes_written + bytes);
            }
            Opcode::Trim => self.stats.trims += 1,
            Opcode::Flush => self.stats.flushes += 1,
            Opcode::ZoneAppend | Opcode::ZoneSend { .. } => unreachable!("NBD requests map to no zoned command"),
        }
        self.interval.op(opcode).submitted(bytes);
        let tag = self.next_tag;
        self.next_tag += 1;
        let read = (opcode == Opcode::Read).then_some((offset, r.length));
        let then_flush = opcode == Opcode::Write && r.fua;
        self.pending.insert(tag, Pending { conn, cookie: r.cookie, op: opcode, submitted: at, read, then_flush });
        self.interval.max_in_flight = self.interval.max_in_flight.max(self.pending.len());
        if let Some(c) = self.conns.get_mut(&conn) {
            c.outstanding += 1;
        }
        let io = IoRequest { opcode, offset_bytes: offset, bytes, placement: None };
        self.host.submit(at, at, io, tag, CompletionPath::Polled);
    }

    /// The twin completed command `tag` at `at`: reply (or, for a FUA write, flush first).
    fn completed(&mut self, tag: u64, at: SimTime) {
        let Some(p) = self.pending.remove(&tag) else { return };
        if p.then_flush {
            let tag = self.next_tag;
            self.next_tag += 1;
            self.pending.insert(tag, Pending { then_flush: false, ..p });
            let flush = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0, placement: None };
            self.host.submit(at, at, flush, tag, CompletionPath::Polled);
            return;
        }
        self.interval.op(p.op).latency.record(at.as_ns() - p.submitted.as_ns());
        let data = match p.read {
            Some((offset, len)) => match self.store.read(offset, len as usize) {
                Ok(d) => d,
                Err(_) => return self.reply_after(p.conn, p.cookie, protocol::EIO, &[], at),
            },
            None => Vec::new(),
        };
        self.reply_after(p.conn, p.cookie, 0, &data, at);
    }

    /// Replies to a request the twin worked on, due at simulated time `due`.
    fn reply_after(&mut self, conn: u32, cookie: u64, error: u32, data: &[u8], due: SimTime) {
        let late = Instant::now().saturating_duration_since(self.to_wall(due));
        self.stats.lateness.record(late.as_nanos() as u64);
        self.interval.lateness.record(late.as_nanos() as u64);
        if late > LATE {
            self.stats.late_replies += 1;
            self.interval.late_replies += 1;
        }
        self.stats.replies += 1;
        self.interval.replies += 1;
        self.send(conn, cookie, error, data);
        if let Some(c) = self.conns.get_mut(&conn) {
            c.outstanding -= 1;
            if c.closing && c.outstanding == 0 {
                c.writer.shutdown();
                self.conns.remove(&conn);
            }
        }
    }

    /// Replies at once to a request the twin never saw (refused, or with nothing to do).
    fn reply_now(&mut self, conn: u32, cookie: u64, error: u32, data: &[u8]) {
        if error != 0 {
            self.stats.errors += 1;
        }
        self.send(conn, cookie, error, data);
    }

    fn send(&mut self, conn: u32, cookie: u64, error: u32, data: &[u8]) {
        let Some(c) = self.conns.get_mut(&conn) else { return };
        let read_at = c.reads.remove(&cookie);
        let reply = protocol::reply(&c.session, read_at, cookie, error, data);
        self.write_reply(conn, &reply);
    }

    fn write_reply(&mut self, conn: u32, reply: &[u8]) {
        let Some(c) = self.conns.get_mut(&conn) else { return };
        if c.broken {
            return;
        }
        if c.writer.write_all(reply).is_err() {
            // The client went away: its remaining replies are dropped.
            c.broken = true;
        }
    }

    fn finish(self) -> ServeStats {
        let mut stats = self.stats;
        stats.time_scale = self.scale;
        stats.wall_seconds = self.wall0.elapsed().as_secs_f64();
        stats.simulated_seconds = (self.floor.as_ns() - self.sim0.as_ns()) as f64 * 1e-9;
        stats
    }
}

/// One operation's requests over a snapshot's interval.
#[derive(Debug, Default)]
struct OpInterval {
    requests: u64,
    bytes: u64,
    /// Simulated time from reaching the twin to completing, ns.
    latency: PlatHistogram,
}

impl OpInterval {
    fn submitted(&mut self, bytes: u64) {
        self.requests += 1;
        self.bytes += bytes;
    }

    fn json(&self) -> serde_json::Value {
        let p = if self.latency.total() == 0 { vec![0, 0, 0] } else { self.latency.percentiles(&[50.0, 99.0, 99.9]) };
        serde_json::json!({
            "requests": self.requests,
            "bytes": self.bytes,
            "completed": self.latency.total(),
            "lat_p50_us": p[0] as f64 / 1e3,
            "lat_p99_us": p[1] as f64 / 1e3,
            "lat_p999_us": p[2] as f64 / 1e3,
        })
    }
}

/// What happened between two snapshots.
#[derive(Debug, Default)]
struct Interval {
    read: OpInterval,
    write: OpInterval,
    trim: OpInterval,
    flush: OpInterval,
    max_in_flight: usize,
    replies: u64,
    late_replies: u64,
    lateness: Tally,
}

impl Interval {
    fn op(&mut self, opcode: Opcode) -> &mut OpInterval {
        match opcode {
            Opcode::Read => &mut self.read,
            Opcode::Write => &mut self.write,
            Opcode::Trim => &mut self.trim,
            Opcode::Flush => &mut self.flush,
            Opcode::ZoneAppend | Opcode::ZoneSend { .. } => unreachable!("NBD requests map to no zoned command"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_socket_file_is_kept_without_force() {
        let path = std::env::temp_dir().join(format!("ssdtwin-serve-{}.sock", std::process::id()));
        std::fs::write(&path, b"keep").unwrap();
        let config = ServeConfig {
            listen: Listen::Unix(path.clone()),
            export_name: String::new(),
            time_scale: 1.0,
            data: None,
            memory_limit_bytes: 1 << 20,
            record: None,
            force: false,
        };
        let e = Server::bind(config).err().expect("refused");
        assert!(e.to_string().ends_with("the file exists; remove it or give --force"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"keep");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn tallies_give_percentiles() {
        let mut t = Tally::default();
        for ns in 1..=1000 {
            t.record(ns * 1000);
        }
        let (p50, p99, max) = t.summary();
        assert!((p50 as f64 / 500_000.0 - 1.0).abs() < 0.05, "{p50}");
        assert!((p99 as f64 / 990_000.0 - 1.0).abs() < 0.05, "{p99}");
        assert_eq!(max, 1_000_000);
    }
}
