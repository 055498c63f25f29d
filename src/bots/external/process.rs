//! A bot program as a child process: its own process group, lines in and out with deadlines,
//! stderr drained on a thread (into a log file of bounded size, and its last lines kept), and
//! the whole group killed when it goes.
//!
//! **A clean start.** Between fork and exec the child's signal mask is emptied and every
//! signal's disposition reset to the default, so a bot starts as from a shell whatever the
//! harness blocks or handles (a bot's own `terminate()` of its helpers works), and it is killed
//! if the thread that started it ends (`PR_SET_PDEATHSIG`), which includes a `kill -9` of the
//! harness.
//!
//! **After a `kill -9` of the harness.** Its direct child dies of `PR_SET_PDEATHSIG`; the
//! rest of each bot's group (a plain forked child) and the descendants that left it are
//! killed by the guardian (`guard.rs`): a small process forked before the first bot, told of
//! every group through a pipe, that kills the groups still live, and every process carrying
//! this harness's `AEROPLANE_BOT_ID`, when the pipe closes because the harness ended however
//! it ended.
//!
//! **No orphans.** Every group is registered in a fixed table of atomics; on the first spawn a
//! handler for SIGINT, SIGTERM and SIGHUP is installed (only where the signal has its default
//! action) that kills every registered group and then lets the signal end the harness as it
//! would have; [`stop_all`] does the same from a program's own handler (the CLI's second
//! Ctrl-C) and marks the job as stopping, so the faults that follow are
//! [`FaultKind::Stopped`](crate::bots::FaultKind), not forfeits. Dropping a [`Process`] (at
//! the end of a run, after a fault, while a panic unwinds) kills its group and reaps the
//! child. A descendant that left the group (`setsid`) is caught when the harness has called
//! [`adopt_orphans`]: orphans are then re-parented to the harness, which kills and reaps those
//! of bots that ended (each bot's processes carry its id in the environment variable
//! `AEROPLANE_BOT_ID`), and every one when no bot is left.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;

mod guard;
use std::time::{Duration, Instant};

/// Longest line a bot may print (a guard against garbage without a newline).
pub const MAX_LINE: usize = 1 << 20;

/// Lines of a bot's stderr kept for error messages when it has no log file.
const STDERR_TAIL: usize = 20;

/// Why reading or writing a line failed.
#[derive(Debug)]
pub enum PipeError {
    /// Nothing complete within the deadline.
    Timeout,
    /// The bot closed its stdout (or stdin, when writing): it exited or crashed.
    Closed,
    /// A line that is not UTF-8 or is too long (the bytes, lossily decoded).
    Garbage(String),
    /// Another IO error.
    Io(io::Error),
}

/// The last lines of a drained stderr.
type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// How to start a bot program.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    /// Program and arguments.
    pub command: &'a [String],
    /// Working directory.
    pub cwd: Option<&'a Path>,
    /// Extra environment.
    pub env: &'a BTreeMap<String, String>,
    /// A file for the bot's stderr; `None` drains it on a thread.
    pub log: Option<PathBuf>,
}

/// A running bot program.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: LineReader,
    slot: Option<usize>,
    /// This process's number among the bots this harness started (its `AEROPLANE_BOT_ID`).
    serial: u64,
    stderr: Option<(JoinHandle<()>, StderrTail)>,
    /// Where its stderr goes, if to a file.
    pub log: Option<PathBuf>,
}

impl Process {
    /// Starts the program in a new process group, with piped stdin, stdout and stderr.
    pub fn spawn(launch: &Launch<'_>) -> io::Result<Process> {
        let (program, args) = launch
            .command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        static SERIAL: AtomicU64 = AtomicU64::new(1);
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(launch.env)
            .env(BOT_ID_VAR, bot_id(serial))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = launch.cwd {
            cmd.current_dir(dir);
        }
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: between fork and exec the closure makes only async-signal-safe calls
        // (sigprocmask, signal, prctl, getppid, _exit) and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                reset_signals();
                #[cfg(target_os = "linux")]
                libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                );
                if libc::getppid() != parent {
                    // The harness ended before the line above: do not outlive it.
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        let log = match &launch.log {
            Some(path) => open_log(path)?,
            None => None,
        };
        install_signal_handler();
        guard::start();
        // No Ctrl-C between the spawn and the registration, and no sweep of orphans that
        // would take the new child for one.
        let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        let blocked = BlockSignals::new();
        let spawned = cmd.spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                drop(blocked);
                drop(live);
                return Err(e);
            }
        };
        let slot = register(child.id() as i32);
        drop(blocked);
        let mut live = live;
        live.push(serial);
        drop(live);
        let stdin = child.stdin.take().expect("piped");
        set_nonblocking(stdin.as_raw_fd())?;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().map(|e| {
            let tail = Arc::new(Mutex::new(VecDeque::new()));
            let keep = Arc::clone(&tail);
            let handle = std::thread::spawn(move || drain(e, log, &keep));
            (handle, tail)
        });
        Ok(Process {
            child,
            stdin: Some(stdin),
            stdout: LineReader::new(stdout),
            slot,
            serial,
            stderr,
            log: launch.log.clone(),
        })
    }

    /// The child's process id (also its process group id).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Writes `bytes` (one or more whole lines) by `deadline`.
    pub fn write(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), PipeError> {
        let stdin = self.stdin.as_ref().ok_or(PipeError::Closed)?;
        let fd = stdin.as_raw_fd();
        let mut rest = bytes;
        while !rest.is_empty() {
            // SAFETY: writes from a live slice to an fd we own.
            let n = unsafe { libc::write(fd, rest.as_ptr().cast(), rest.len()) };
            if n >= 0 {
                rest = &rest[n as usize..];
                continue;
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => {}
                io::ErrorKind::WouldBlock => wait_fd(fd, libc::POLLOUT, deadline)?,
                io::ErrorKind::BrokenPipe => return Err(PipeError::Closed),
                _ => return Err(PipeError::Io(e)),
            }
        }
        Ok(())
    }

    /// Reads the next line (without its newline) by `deadline` (`None`: wait for ever).
    pub fn read_line(&mut self, deadline: Option<Instant>) -> Result<&str, PipeError> {
        self.stdout.read_line(deadline)
    }

    /// The last lines of the bot's stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        match &self.stderr {
            Some((_, tail)) => tail
                .lock()
                .map(|t| t.iter().cloned().collect())
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// How the process ended, if it has: waits up to `grace` for it to exit.
    pub fn exit_status(&mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        // An exited bot has closed its stdout (unless a child of its own holds it): wait for
        // that, then reap.
        let deadline = Instant::now() + grace;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            match self.stdout.read_line(Some(deadline)) {
                Ok(_) => continue,
                Err(PipeError::Closed) => {
                    // Closed: the exit is imminent if not done; reap within the grace.
                    return wait_timeout(&mut self.child, deadline);
                }
                Err(_) => return self.child.try_wait().ok().flatten(),
            }
        }
    }

    /// Asks the program to end (`bye`, then closing its stdin), waits up to `grace`, then
    /// kills its group and reaps it.
    pub fn close(mut self, bye: &[u8], grace: Duration) {
        let deadline = Instant::now() + grace;
        let _ = self.write(bye, deadline);
        self.stdin = None;
        let _ = wait_timeout(&mut self.child, deadline);
        // Drop kills the group (any children it left) and reaps.
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stdin = None;
        kill_group(self.child.id() as i32);
        let _ = self.child.wait();
        if let Some(slot) = self.slot.take() {
            unregister(slot);
        }
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&s| s != self.serial);
        reap_orphans();
        if let Some((handle, _)) = self.stderr.take() {
            // The group is dead, so the pipe is closed (unless something outside the group
            // inherited it): the drain thread ends on its own; do not wait for it.
            drop(handle);
        }
    }
}

/// The most bytes of one bot process's stderr written to its log file.
pub const MAX_LOG_BYTES: u64 = 8 << 20;

/// The most bytes of every bot's stderr logged by one harness process; past it, new
/// processes get no log file (their last lines are still kept for messages).
pub const MAX_LOGS_BYTES: u64 = 256 << 20;

/// Bytes the logs of this harness process may still take.
static LOG_BUDGET: AtomicU64 = AtomicU64::new(MAX_LOGS_BYTES);

/// Opens a log file, unless the logs have used their budget.
fn open_log(path: &Path) -> io::Result<Option<File>> {
    if LOG_BUDGET.load(Ordering::Relaxed) == 0 {
        return Ok(None);
    }
    if let Some(dir) = path.parent() {
        crate::files::no_follow::make_dir(dir)?;
    }
    crate::files::no_follow::create(path).map(Some)
}

/// Reads the bot's stderr until it closes: into the log (at most [`MAX_LOG_BYTES`] of it, and
/// within the budget of all logs), keeping its last lines (each cut to 1,000 bytes). Reads in
/// fixed pieces, so a stderr without newlines takes no more memory than one with them.
fn drain(
    mut stderr: std::process::ChildStderr,
    mut log: Option<File>,
    tail: &Mutex<VecDeque<String>>,
) {
    use std::io::{Read, Write};
    const LINE: usize = 1000;
    let mut buf = [0u8; 8192];
    let mut line: Vec<u8> = Vec::with_capacity(LINE);
    let mut logged = 0u64;
    loop {
        let n = match stderr.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if let Some(f) = log.as_mut() {
            let room = MAX_LOG_BYTES.saturating_sub(logged);
            let granted = take_budget(room.min(n as u64));
            let ok = f.write_all(&buf[..granted as usize]).is_ok();
            logged += granted;
            if !ok || (granted as usize) < n {
                let _ = writeln!(
                    f,
                    "\n[aeroplane: this log stops here: a log holds at most {} and the logs of a run {}; the rest of the bot's stderr was discarded]",
                    crate::files::human_bytes(MAX_LOG_BYTES),
                    crate::files::human_bytes(MAX_LOGS_BYTES)
                );
                log = None;
            }
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                push_tail(tail, &line);
                line.clear();
            } else if line.len() < LINE {
                line.push(b);
            }
        }
    }
    if !line.is_empty() {
        push_tail(tail, &line);
    }
}

/// Takes up to `want` bytes from the budget of all logs; returns how many it got.
fn take_budget(want: u64) -> u64 {
    let mut left = LOG_BUDGET.load(Ordering::Relaxed);
    loop {
        let got = want.min(left);
        match LOG_BUDGET.compare_exchange(left, left - got, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return got,
            Err(now) => left = now,
        }
    }
}

fn push_tail(tail: &Mutex<VecDeque<String>>, line: &[u8]) {
    if let Ok(mut t) = tail.lock() {
        if t.len() == STDERR_TAIL {
            t.pop_front();
        }
        let text = String::from_utf8_lossy(line);
        t.push_back(aeroplane_core::excerpt::clip_lines(text.trim_end(), 200));
    }
}

fn wait_timeout(child: &mut Child, deadline: Instant) -> Option<std::process::ExitStatus> {
    loop {
        if let Ok(Some(s)) = child.try_wait() {
            return Some(s);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn set_nonblocking(fd: i32) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// How often a wait on a bot checks whether the job is stopping ([`stop_all`]): a killed bot
/// whose pipe a surviving descendant still holds never closes it.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Waits until `fd` is ready for `events` or `deadline` passes (`None`: no deadline); gives
/// up as if the pipe were closed once the job is stopping.
fn wait_fd(fd: i32, events: i16, deadline: impl Into<Option<Instant>>) -> Result<(), PipeError> {
    let deadline = deadline.into();
    loop {
        if stopping() {
            return Err(PipeError::Closed);
        }
        let slice = STOP_CHECK.as_millis() as i32;
        let timeout = match deadline {
            None => slice,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(PipeError::Timeout);
                }
                (left.as_millis().clamp(1, i32::MAX as u128) as i32).min(slice)
            }
        };
        let mut p = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, timeout) };
        if n > 0 {
            if p.revents & (libc::POLLERR | libc::POLLNVAL) != 0 && p.revents & events == 0 {
                return Err(PipeError::Closed);
            }
            return Ok(());
        }
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(PipeError::Io(e));
            }
        }
    }
}

/// Lines from the bot's stdout, read in the calling thread with `poll` for deadlines.
struct LineReader {
    out: ChildStdout,
    /// `buf[start..end]` holds bytes read and not yet returned; the rest is spare room
    /// (allocated and zeroed once, not per read).
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes of `buf[start..end]` already searched for a newline.
    scanned: usize,
    eof: bool,
    line: String,
}

impl LineReader {
    fn new(out: ChildStdout) -> Self {
        LineReader {
            out,
            buf: vec![0; 1 << 16],
            start: 0,
            end: 0,
            scanned: 0,
            eof: false,
            line: String::new(),
        }
    }

    fn read_line(&mut self, deadline: Option<Instant>) -> Result<&str, PipeError> {
        loop {
            let unread = &self.buf[self.start..self.end];
            if let Some(i) = unread[self.scanned..].iter().position(|&b| b == b'\n') {
                let stop = self.start + self.scanned + i;
                let mut bytes = &self.buf[self.start..stop];
                if bytes.last() == Some(&b'\r') {
                    bytes = &bytes[..bytes.len() - 1];
                }
                self.line.clear();
                let text = match std::str::from_utf8(bytes) {
                    Ok(t) => {
                        self.line.push_str(t);
                        Ok(())
                    }
                    Err(_) => Err(PipeError::Garbage(
                        String::from_utf8_lossy(bytes).into_owned(),
                    )),
                };
                self.start = stop + 1;
                self.scanned = 0;
                text?;
                return Ok(&self.line);
            }
            self.scanned = unread.len();
            if self.scanned > MAX_LINE {
                let head = String::from_utf8_lossy(&unread[..200]).into_owned();
                self.start = self.end;
                self.scanned = 0;
                return Err(PipeError::Garbage(format!(
                    "{head}... (over {MAX_LINE} bytes without a newline)"
                )));
            }
            if self.eof {
                if self.scanned > 0 {
                    // A last line without a newline: not a message (a message ends with one).
                    let rest = String::from_utf8_lossy(unread).into_owned();
                    self.start = self.end;
                    self.scanned = 0;
                    return Err(PipeError::Garbage(rest));
                }
                return Err(PipeError::Closed);
            }
            // Make room: move the unread bytes to the front, grow only when they fill it.
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                self.buf.resize(2 * self.buf.len(), 0);
            }
            wait_fd(self.out.as_raw_fd(), libc::POLLIN, deadline)?;
            let n = loop {
                match io::Read::read(&mut self.out, &mut self.buf[self.end..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(PipeError::Io(e)),
                }
            };
            self.end += n;
            self.eof = n == 0;
        }
    }
}

// ---- the registry of live process groups, for the signal handler ----

const SLOTS: usize = 1024;
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

fn register(pgid: i32) -> Option<usize> {
    guard::tell(pgid, true);
    (0..SLOTS).find(|&i| {
        GROUPS[i]
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

fn unregister(slot: usize) {
    let pgid = GROUPS[slot].swap(0, Ordering::SeqCst);
    guard::tell(pgid, false);
}

/// Whether any bot program is running now. Async-signal-safe (atomic loads): the CLI's
/// Ctrl-C handler asks it to say what a second Ctrl-C would do.
pub fn any_running() -> bool {
    GROUPS.iter().any(|g| g.load(Ordering::SeqCst) > 0)
}

fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill has no memory effects; a group that is gone gives ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Set once the job is stopping: waits on bots give up, and a bot's failure from then on is
/// [`FaultKind::Stopped`](crate::bots::FaultKind::Stopped).
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Marks the job as stopping: every wait on a bot gives up within 100 ms (the game in flight
/// is abandoned and played again on resume; the games finished before it are kept), and the bots are then closed as usual
/// (`quit`, a grace period, their group killed). Async-signal-safe (an atomic store): a
/// program's signal handler may call it, as the CLI does on a first Ctrl-C.
pub fn request_stop() {
    STOPPING.store(true, Ordering::SeqCst);
}

/// [`request_stop`], and kills every bot process group now. Async-signal-safe (atomics and
/// `kill`): the CLI calls it on a second Ctrl-C. The processes are reaped as their bots are
/// dropped.
pub fn stop_all() {
    request_stop();
    for g in &GROUPS {
        kill_group(g.load(Ordering::SeqCst));
    }
}

/// Whether [`request_stop`] (or [`stop_all`]) was called.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// The environment variable that marks every process of one bot (inherited by its children).
pub const BOT_ID_VAR: &str = "AEROPLANE_BOT_ID";

/// The value of [`BOT_ID_VAR`] for this harness's bot number `serial`.
fn bot_id(serial: u64) -> String {
    format!("{}.{serial}", std::process::id())
}

/// The bots (by serial) whose process runs; held while one is spawned, so an orphan sweep
/// never takes a child just started for an orphan.
static LIVE: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// Whether this process adopts its bots' orphans ([`adopt_orphans`]).
static ADOPTING: AtomicBool = AtomicBool::new(false);

/// Makes this process the reaper of every orphan among its descendants (Linux
/// `PR_SET_CHILD_SUBREAPER`), so a bot's child that left the bot's process group (`setsid`)
/// and outlived it is re-parented here, then killed and reaped. Only for a program whose
/// child processes are all bots (the `aeroplane` CLI): orphans of other children would be
/// killed too. Returns whether the system allows it.
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with an integer argument.
    let ok = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0) } == 0;
    #[cfg(not(target_os = "linux"))]
    let ok = false;
    ADOPTING.store(ok, Ordering::SeqCst);
    ok
}

/// Kills and reaps the orphans this process adopted ([`adopt_orphans`]) that belong to no
/// running bot: those of bots that ended, and, when no bot runs, every one. Repeats until
/// none is left (killing one re-parents its own children here).
pub fn reap_orphans() {
    if !ADOPTING.load(Ordering::SeqCst) {
        return;
    }
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let me = std::process::id();
    let leaders: Vec<i32> = GROUPS
        .iter()
        .map(|g| g.load(Ordering::SeqCst))
        .filter(|&p| p > 0)
        .collect();
    for _ in 0..100 {
        let orphans: Vec<i32> = children_of(me)
            .into_iter()
            .filter(|&pid| !leaders.contains(&pid) && pid != guard::pid())
            .filter(|&pid| match bot_of(pid) {
                Some((harness, serial)) if harness == me => !live.contains(&serial),
                // Not marked (its environment cleared), or not readable: only when no bot runs.
                _ => live.is_empty(),
            })
            .collect();
        if orphans.is_empty() {
            return;
        }
        for pid in orphans {
            kill_group(pid);
            // SAFETY: kills and reaps a child of this process.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|stat| {
                    // `pid (comm) state ppid ...`: the name may hold spaces and parentheses.
                    let rest = &stat[stat.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(pid)
        })
        .collect()
}

/// The harness pid and bot serial in a process's [`BOT_ID_VAR`], if it has one.
fn bot_of(pid: i32) -> Option<(u32, u64)> {
    let env = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{BOT_ID_VAR}=");
    env.split(|&b| b == 0).find_map(|var| {
        let value = std::str::from_utf8(var.strip_prefix(prefix.as_bytes())?).ok()?;
        let (harness, serial) = value.split_once('.')?;
        Some((harness.parse().ok()?, serial.parse().ok()?))
    })
}

/// In a child between fork and exec: an empty signal mask and every signal's default action,
/// so the program starts as from a shell. Async-signal-safe.
fn reset_signals() {
    // SAFETY: sigprocmask and signal with valid arguments; no allocation.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        #[cfg(target_os = "linux")]
        let last = libc::SIGRTMIN();
        #[cfg(not(target_os = "linux"))]
        let last = 32;
        for sig in 1..last {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
}

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe calls: atomics, kill, waitpid, signal, raise.
    for g in &GROUPS {
        kill_group(g.load(Ordering::SeqCst));
    }
    for g in &GROUPS {
        let pid = g.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: reaps our own child (the group's leader), dead or dying of SIGKILL.
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
    // SAFETY: restores the default action and re-raises, ending the process as the signal
    // would have without the handler.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread while it lives.
struct BlockSignals(libc::sigset_t);

impl BlockSignals {
    fn new() -> Self {
        // SAFETY: builds a signal set and swaps this thread's mask, keeping the old one.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::sigaddset(&mut set, sig);
            }
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            BlockSignals(old)
        }
    }
}

impl Drop for BlockSignals {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved by `new`; a signal that came meanwhile runs now.
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.0, std::ptr::null_mut());
        }
    }
}

fn install_signal_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: queries and sets the disposition with valid sigaction structs; the
            // handler only makes async-signal-safe calls.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    // Ignored (nohup) or handled by the program: leave it alone.
                    continue;
                }
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut new.sa_mask);
                libc::sigaction(sig, &new, std::ptr::null_mut());
            }
        }
    });
}

/// A fresh log file name under `dir` for a process of bot `name`: `<name>-<n>.log`.
pub fn log_path(dir: &Path, name: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!("{safe}-{n}.log"))
}
