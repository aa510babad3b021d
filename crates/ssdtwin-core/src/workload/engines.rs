//! fio's I/O engines, as fio 3.33 knows them: which wait synchronously (fio's
//! `FIO_SYNCIO` flag: one I/O in flight whatever `iodepth` says, no submission latency),
//! and which ssdtwin runs or refuses, with the reason.
//!
//! What sets an engine apart in the runner is a column of [`ENGINES`] (an I/O through a
//! mapping, no device I/O at all, queueing only direct I/O, taking per-command priorities),
//! so that the runner asks the table and never compares engine names.
//!
//! An engine ssdtwin runs takes its CPU costs from the host profile (`[engines.NAME]`,
//! see `os::HostConfig`); the bare twin (`--host none`) runs every one at no cost. Three
//! names are not fio's: `diskspd` (`DiskSpd`'s overlapped I/O on a completion port, as
//! `CrystalDiskMark` runs it) and `nvmecontrol-intr` / `nvmecontrol-wait` (FreeBSD's
//! `nvmecontrol perftest` modes), used by the studies that reproduce those tools.

/// Whether ssdtwin runs an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Simulated.
    Modelled,
    /// Refused, with the reason.
    Refused(&'static str),
}

/// One engine.
// Each flag is one column of fio's engine table (its `FIO_*` flags, and ours).
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FioEngine {
    /// fio's name.
    pub name: &'static str,
    /// fio's `FIO_SYNCIO`: the thread blocks on each I/O.
    pub sync: bool,
    /// A kernel thread whose completion handler issues the next command.
    pub kernel_callback: bool,
    /// fio's mmap engine: each I/O is a copy through the file's mapping.
    pub maps_file: bool,
    /// fio's null engine: every I/O completes at once, and no device I/O is made.
    pub no_device_io: bool,
    /// Queues only `O_DIRECT` I/O: buffered, its submit call does the I/O before it returns
    /// (Linux's native AIO, host-facts §1.2).
    pub queues_direct_only: bool,
    /// Takes per-command priorities (fio's `cmdprio_*` options).
    pub cmdprio: bool,
    /// Sends NVMe commands through the namespace's character device, around the page cache
    /// and file systems: every I/O is direct, and writes may carry placement directives.
    pub passthrough: bool,
    /// Whether ssdtwin runs it.
    pub support: Support,
}

const NETWORK: &str = "it moves data over a network, which ssdtwin does not model; serve the twin with 'ssdtwin serve' and run real fio's nbd engine against it";
const PMEM: &str = "it addresses persistent memory, not a block device";
const FILE_OPS: &str = "it times file-system operations rather than block I/O";
const PASSTHROUGH: &str = "it sends commands around the block layer, which ssdtwin models only for io_uring_cmd; use io_uring_cmd, io_uring or libaio";
const EXTERNAL: &str = "it loads code from outside fio, which ssdtwin cannot run";

const fn modelled(name: &'static str, sync: bool) -> FioEngine {
    FioEngine {
        name,
        sync,
        kernel_callback: false,
        maps_file: false,
        no_device_io: false,
        queues_direct_only: false,
        cmdprio: false,
        passthrough: false,
        support: Support::Modelled,
    }
}

const fn refused(name: &'static str, why: &'static str) -> FioEngine {
    FioEngine { support: Support::Refused(why), ..modelled(name, false) }
}

/// Every engine name, fio's first (`fio --enghelp` of 3.33), then ssdtwin's own.
pub const ENGINES: &[FioEngine] = &[
    modelled("sync", true),
    modelled("psync", true),
    modelled("vsync", true),
    modelled("pvsync", true),
    modelled("pvsync2", true),
    FioEngine { queues_direct_only: true, cmdprio: true, ..modelled("libaio", false) },
    FioEngine { cmdprio: true, ..modelled("io_uring", false) },
    modelled("posixaio", false),
    modelled("windowsaio", false),
    FioEngine { no_device_io: true, ..modelled("null", false) },
    FioEngine { maps_file: true, ..modelled("mmap", true) },
    FioEngine { passthrough: true, ..modelled("io_uring_cmd", false) },
    refused("sg", PASSTHROUGH),
    refused("xnvme", PASSTHROUGH),
    refused("libblkio", PASSTHROUGH),
    refused("splice", "it moves data through a pipe, which ssdtwin does not model"),
    refused("solarisaio", "it is Solaris's, and no host profile is Solaris"),
    refused("net", NETWORK),
    refused("netsplice", NETWORK),
    refused("rdma", NETWORK),
    refused("nbd", NETWORK),
    refused("rbd", NETWORK),
    refused("rados", NETWORK),
    refused("http", NETWORK),
    refused("nfs", NETWORK),
    refused("dfs", NETWORK),
    refused("gfapi", NETWORK),
    refused("gfapi_async", NETWORK),
    refused("libhdfs", NETWORK),
    refused("libiscsi", NETWORK),
    refused("ime_psync", NETWORK),
    refused("ime_psyncv", NETWORK),
    refused("ime_aio", NETWORK),
    refused("librpma_apm_client", NETWORK),
    refused("librpma_apm_server", NETWORK),
    refused("librpma_gpspm_client", NETWORK),
    refused("librpma_gpspm_server", NETWORK),
    refused("libcufile", "it moves data between a GPU and storage, which ssdtwin does not model"),
    refused("libzbc", "zoned drives are not modelled yet"),
    refused("dev-dax", PMEM),
    refused("libpmem", PMEM),
    refused("pmemblk", PMEM),
    refused("filecreate", FILE_OPS),
    refused("filestat", FILE_OPS),
    refused("filedelete", FILE_OPS),
    refused("falloc", FILE_OPS),
    refused("ftruncate", FILE_OPS),
    refused("e4defrag", FILE_OPS),
    refused("mtd", "it addresses raw flash through Linux MTD, not an NVMe namespace"),
    refused("cpuio", "it only burns CPU and issues no I/O"),
    refused("exec", EXTERNAL),
    refused("external", EXTERNAL),
    refused(
        "cpp_null",
        "it is fio's C++ example engine, built outside fio's default engines, which ssdtwin cannot run; use null",
    ),
    modelled("diskspd", false),
    FioEngine { kernel_callback: true, ..modelled("nvmecontrol-intr", false) },
    modelled("nvmecontrol-wait", true),
];

/// The engine fio calls `name` (an `external:` engine is `external`).
pub fn fio_engine(name: &str) -> Option<&'static FioEngine> {
    let name = if name.starts_with("external:") { "external" } else { name };
    ENGINES.iter().find(|e| e.name == name)
}

/// Names of the engines ssdtwin runs.
pub fn modelled_engine_names() -> Vec<&'static str> {
    ENGINES.iter().filter(|e| e.support == Support::Modelled).map(|e| e.name).collect()
}

/// Engines that fio runs synchronously (one I/O in flight per job).
pub fn is_sync_engine(engine: &str) -> bool {
    fio_engine(engine).is_some_and(|e| e.sync)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, e) in ENGINES.iter().enumerate() {
            assert!(ENGINES[..i].iter().all(|o| o.name != e.name), "{} twice", e.name);
        }
    }

    #[test]
    fn external_engines_are_one_entry() {
        assert_eq!(fio_engine("external:/opt/engine.so").map(|e| e.name), Some("external"));
    }

    #[test]
    fn fios_synchronous_engines_are_the_ones_it_flags() {
        let sync: Vec<&str> =
            ENGINES.iter().filter(|e| e.sync && e.name != "nvmecontrol-wait").map(|e| e.name).collect();
        assert_eq!(sync, ["sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"]);
    }
}
