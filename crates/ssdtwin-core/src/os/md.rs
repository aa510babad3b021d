//! Several block targets as one, as Linux's md driver joins them: concatenated (`linear`,
//! which is also how the VM sees several swap devices side by side) or striped (`raid0`).
//!
//! Read first: `drivers/md/md-linear.c` (`which_dev`) and `drivers/md/raid0.c`
//! (`map_sector`, `find_zone`); `docs/model.md` § "Several devices". Members are targets of
//! one type and one size (a card that shows two LUNs: `Md<Ssd>`); a command is split where
//! it crosses a member (linear) or a chunk (raid0), each piece goes to its member, and the
//! command completes when its last piece does. A flush goes to every member. md's own CPU
//! cost (a few hundred ns per bio) is not modelled.
//!
//! ```
//! use ssdtwin_core::block::{BlockDevice, Command, Opcode};
//! use ssdtwin_core::config::{build, load_profile};
//! use ssdtwin_core::os::{Md, MdLayout};
//! use ssdtwin_core::ssd::Ssd;
//!
//! let lun = || Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
//! let mut md = Md::new(vec![lun(), lun()], MdLayout::Raid0 { chunk_bytes: 512 << 10 });
//! // 1 MiB at offset 0 is one 512 KiB chunk on each member.
//! md.submit(md.now(), Command::new(Opcode::Read, 0, 2048), 9).unwrap();
//! let done = loop {
//!     if let Some(c) = md.poll() { break c; }
//! };
//! assert_eq!((done.user, done.command.blocks), (9, 2048));
//! ```

use crate::block::{BlockDevice, BlockGeometry, Command, Completion, CounterRow, HostInterface, Opcode, SubmitError};
use crate::engine::{SimTime, Slab};

/// How members are joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdLayout {
    /// One after the other.
    Linear,
    /// Striped in chunks of `chunk_bytes`, member by member.
    Raid0 {
        /// Chunk size, bytes (a multiple of the LBA size).
        chunk_bytes: u64,
    },
}

#[derive(Clone, Copy, Debug)]
struct Request {
    user: u64,
    command: Command,
    submitted: SimTime,
    completed: SimTime,
    parts_left: u32,
}

/// Members joined by a layout. See the module documentation.
pub struct Md<D: BlockDevice> {
    members: Vec<D>,
    layout: MdLayout,
    member_lbas: u64,
    lba_bytes: u64,
    requests: Slab<Request>,
    in_flight: u32,
    now: SimTime,
}

impl<D: BlockDevice> Md<D> {
    /// `members` (at least one, all of one geometry) joined by `layout`.
    ///
    /// # Panics
    ///
    /// If there are no members or their geometries differ (the caller builds them from one
    /// profile).
    pub fn new(members: Vec<D>, layout: MdLayout) -> Self {
        let g = members.first().expect("an md device has members").geometry();
        assert!(members.iter().all(|m| m.geometry() == g), "md members share one geometry");
        let now = members.iter().map(BlockDevice::now).max().unwrap_or(SimTime::ZERO);
        Md {
            members,
            layout,
            member_lbas: g.lbas,
            lba_bytes: g.lba_bytes,
            requests: Slab::default(),
            in_flight: 0,
            now,
        }
    }

    /// The members.
    pub fn members(&self) -> &[D] {
        &self.members
    }

    /// The member and its LBA for `lba`, and how many LBAs from there stay on that member.
    fn map(&self, lba: u64) -> (usize, u64, u64) {
        match self.layout {
            MdLayout::Linear => {
                let m = lba / self.member_lbas;
                (m as usize, lba % self.member_lbas, self.member_lbas - lba % self.member_lbas)
            }
            MdLayout::Raid0 { chunk_bytes } => {
                let chunk = (chunk_bytes / self.lba_bytes).max(1);
                let n = self.members.len() as u64;
                let (c, within) = (lba / chunk, lba % chunk);
                ((c % n) as usize, c / n * chunk + within, chunk - within)
            }
        }
    }
}

impl<D: BlockDevice> BlockDevice for Md<D> {
    fn geometry(&self) -> BlockGeometry {
        let g = self.members[0].geometry();
        BlockGeometry { lbas: g.lbas * self.members.len() as u64, zones: None, ..g }
    }

    fn profile(&self) -> &str {
        self.members[0].profile()
    }

    fn now(&self) -> SimTime {
        self.now
    }

    fn submit(&mut self, now: SimTime, command: Command, tag: u64) -> Result<(), SubmitError> {
        let lbas = self.geometry().lbas;
        if command.opcode.is_zoned() {
            return Err(SubmitError::NotZoned { opcode: command.opcode });
        }
        if command.opcode != Opcode::Flush {
            if command.blocks == 0 {
                return Err(SubmitError::Empty { opcode: command.opcode });
            }
            if command.slba + u64::from(command.blocks) > lbas {
                return Err(SubmitError::OutOfRange { slba: command.slba, blocks: command.blocks, lbas });
            }
        }
        self.now = self.now.max(now);
        let r = self.requests.insert(Request { user: tag, command, submitted: now, completed: now, parts_left: 0 });
        self.in_flight += 1;
        if command.opcode == Opcode::Flush {
            for m in &mut self.members {
                m.submit(now, command, u64::from(r))?;
            }
            self.requests[r].parts_left = self.members.len() as u32;
            return Ok(());
        }
        let (mut lba, end) = (command.slba, command.slba + u64::from(command.blocks));
        let mut parts = 0;
        while lba < end {
            let (m, at, room) = self.map(lba);
            let n = room.min(end - lba);
            let piece = Command { slba: at, blocks: n as u32, ..command };
            self.members[m].submit(now, piece, u64::from(r))?;
            parts += 1;
            lba += n;
        }
        self.requests[r].parts_left = parts;
        Ok(())
    }

    fn poll_at(&self) -> SimTime {
        self.members.iter().map(BlockDevice::poll_at).min().unwrap_or(SimTime::NEVER)
    }

    fn poll(&mut self) -> Option<Completion> {
        let (m, at) = self.members.iter().enumerate().map(|(i, d)| (i, d.poll_at())).min_by_key(|&(i, t)| (t, i))?;
        if at == SimTime::NEVER {
            return None;
        }
        let done = self.members[m].poll();
        self.now = self.now.max(self.members[m].now());
        let done = done?;
        let r = done.user as u32;
        let req = &mut self.requests[r];
        req.parts_left -= 1;
        req.completed = req.completed.max(done.completed);
        if req.parts_left > 0 {
            return None;
        }
        let req = *req;
        self.requests.free(r);
        self.in_flight -= 1;
        Some(Completion {
            user: req.user,
            command: req.command,
            submitted: req.submitted,
            completed: req.completed,
            assigned_lba: 0,
        })
    }

    fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The members' counters summed under `prefix`, then each member's under
    /// `prefix.lunK`.
    fn counters(&self, prefix: &str, out: &mut CounterRow) {
        let rows: Vec<CounterRow> = self
            .members
            .iter()
            .map(|m| {
                let mut row = CounterRow::at(0);
                m.counters("", &mut row);
                row
            })
            .collect();
        for (k, c) in rows[0].entries.iter().enumerate() {
            let sum: u64 = rows.iter().map(|r| r.entries.get(k).map_or(0, |e| e.value)).sum();
            if c.level {
                out.level(prefix, &c.name, sum);
            } else {
                out.total(prefix, &c.name, sum);
            }
        }
        for (i, m) in self.members.iter().enumerate() {
            let p = if prefix.is_empty() { format!("lun{i}") } else { format!("{prefix}.lun{i}") };
            m.counters(&p, out);
        }
    }

    fn host_interface(&self) -> Option<HostInterface> {
        let mut h = self.members[0].host_interface()?;
        h.host_memory_bytes *= self.members.len() as u64;
        Some(h)
    }

    /// Each member draws from streams of its own: the run's seed mixed with its index.
    fn reseed(&mut self, seed: u64) {
        for (i, m) in self.members.iter_mut().enumerate() {
            m.reseed(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{build, load_profile};
    use crate::ssd::Ssd;

    fn lun() -> Ssd {
        Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap())
    }

    fn run(md: &mut Md<Ssd>, command: Command) -> Completion {
        md.submit(md.now(), command, 1).unwrap();
        loop {
            if let Some(c) = md.poll() {
                return c;
            }
        }
    }

    #[test]
    fn linear_puts_the_second_member_after_the_first() {
        let mut md = Md::new(vec![lun(), lun()], MdLayout::Linear);
        let per = md.members()[0].geometry().lbas;
        assert_eq!(md.geometry().lbas, 2 * per);
        // A write across the boundary lands on both.
        run(&mut md, Command::new(Opcode::Write, per - 8, 16));
        let written = |d: &Ssd| d.counters().host_write_bytes;
        assert_eq!((written(&md.members()[0]), written(&md.members()[1])), (4096, 4096));
    }

    #[test]
    fn raid0_stripes_chunks_member_by_member() {
        let mut md = Md::new(vec![lun(), lun()], MdLayout::Raid0 { chunk_bytes: 64 << 10 });
        // Four 64 KiB chunks: two on each member.
        run(&mut md, Command::new(Opcode::Write, 0, 512));
        let written = |d: &Ssd| d.counters().host_write_bytes;
        assert_eq!((written(&md.members()[0]), written(&md.members()[1])), (128 << 10, 128 << 10));
        assert_eq!(md.map(128 * 3 + 5), (1, 128 + 5, 123), "chunk 3 is member 1's second");
        assert_eq!(md.in_flight(), 0);
    }
}
