//! A bot program as a child process: its own process group, lines in and out with deadlines,
//! stderr to a log file or a drain thread, and the whole group killed when it goes.
//!
//! **No orphans.** Every group is registered in a fixed table of atomics; on the first spawn a
//! handler for SIGINT, SIGTERM and SIGHUP is installed (only where the signal has its default
//! action) that kills every registered group and then lets the signal end the harness as it
//! would have. Dropping a [`Process`] (at the end of a run, after a fault, while a panic
//! unwinds) kills its group and reaps the child.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;
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
    stderr: Option<(JoinHandle<()>, StderrTail)>,
    /// Where its stderr goes, if to a file.
    pub log: Option<PathBuf>,
}

impl Process {
    /// Starts the program in a new process group, with piped stdin and stdout.
    pub fn spawn(launch: &Launch<'_>) -> io::Result<Process> {
        let (program, args) = launch
            .command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty command"))?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(launch.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .process_group(0);
        if let Some(dir) = launch.cwd {
            cmd.current_dir(dir);
        }
        match &launch.log {
            Some(path) => {
                cmd.stderr(File::create(path)?);
            }
            None => {
                cmd.stderr(Stdio::piped());
            }
        }
        install_signal_handler();
        // No Ctrl-C between the spawn and the registration (the child's mask is reset by
        // `spawn`).
        let _blocked = BlockSignals::new();
        let mut child = cmd.spawn()?;
        let slot = register(child.id() as i32);
        drop(_blocked);
        let stdin = child.stdin.take().expect("piped");
        set_nonblocking(stdin.as_raw_fd())?;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().map(|e| {
            let tail = Arc::new(Mutex::new(VecDeque::new()));
            let keep = Arc::clone(&tail);
            let handle = std::thread::spawn(move || drain(e, &keep));
            (handle, tail)
        });
        Ok(Process {
            child,
            stdin: Some(stdin),
            stdout: LineReader::new(stdout),
            slot,
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

    /// The last lines of the bot's stderr, when it is drained rather than logged.
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
        if let Some((handle, _)) = self.stderr.take() {
            // The group is dead, so the pipe is closed (unless something outside the group
            // inherited it): the drain thread ends on its own; do not wait for it.
            drop(handle);
        }
    }
}

fn drain(stderr: std::process::ChildStderr, tail: &Mutex<VecDeque<String>>) {
    let mut r = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if let Ok(mut t) = tail.lock() {
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    line.truncate(1000);
                    t.push_back(String::from_utf8_lossy(&line).trim_end().to_string());
                }
            }
        }
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

/// Waits until `fd` is ready for `events` or `deadline` passes (`None`: no deadline).
fn wait_fd(fd: i32, events: i16, deadline: impl Into<Option<Instant>>) -> Result<(), PipeError> {
    let deadline = deadline.into();
    loop {
        let timeout = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(PipeError::Timeout);
                }
                left.as_millis().clamp(1, i32::MAX as u128) as i32
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
    (0..SLOTS).find(|&i| {
        GROUPS[i]
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

fn unregister(slot: usize) {
    GROUPS[slot].store(0, Ordering::SeqCst);
}

fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill has no memory effects; a group that is gone gives ESRCH.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
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
