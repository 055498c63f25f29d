//! The guardian: what kills a bot program's processes after a `kill -9` of the harness.
//!
//! `PR_SET_PDEATHSIG` kills a bot's direct child when the harness dies, but nothing reaches
//! the rest of its process group (a plain forked child) or what left the group (`setsid`):
//! they would live on with parent 1. So before its first bot the harness forks a guardian, a
//! small process of its own session that ignores the terminal's signals and holds the read end
//! of a pipe. The harness writes each bot group it starts and ends to the pipe; the pipe closes
//! when the harness ends, however it ends (its write end is close-on-exec, so no bot holds it),
//! and the guardian then kills every group still live and every process whose environment
//! carries this harness's `AEROPLANE_BOT_ID` (`<pid>.`), and exits.
//!
//! After the fork the guardian makes only system calls (no allocation, no lock): the harness
//! has other threads, whose locks the fork copies held. A process caught in the middle of an
//! exec shows no environment for a moment (its parent may already have seen the exec
//! succeed): the guardian passes over /proc again until no live process is undecided, for at
//! most about a second. What it cannot reach: a descendant that cleared its environment and
//! left the group (it only delays the guardian's end by that second), and a process of
//! another user.

use std::sync::Once;
use std::sync::atomic::{AtomicI32, Ordering};

/// The write end of the guardian's pipe (-1: no guardian).
static WRITE_FD: AtomicI32 = AtomicI32::new(-1);

/// The guardian's pid (0: none).
static PID: AtomicI32 = AtomicI32::new(0);

/// The most groups the guardian keeps (as many as the harness registers).
const GROUPS: usize = super::SLOTS;

/// The guardian's pid, or 0 (it is a child of the harness, never one of its bots' orphans).
pub(super) fn pid() -> i32 {
    PID.load(Ordering::SeqCst)
}

/// Starts the guardian, once per process (before its first bot program).
pub(super) fn start() {
    static ONCE: Once = Once::new();
    // SAFETY: `spawn` forks; the child runs only `watch`, which makes system calls only.
    ONCE.call_once(|| unsafe { spawn() });
}

/// Tells the guardian that the group `pgid` started (`live`) or ended. Never blocks: a full
/// pipe (the guardian gone or stuck) loses the message.
pub(super) fn tell(pgid: i32, live: bool) {
    let fd = WRITE_FD.load(Ordering::SeqCst);
    if fd < 0 || pgid <= 0 {
        return;
    }
    let mut record = [0u8; 8];
    record[..4].copy_from_slice(&pgid.to_ne_bytes());
    record[4] = live as u8;
    // SAFETY: writes 8 bytes from a live array (at most PIPE_BUF: one atomic write).
    unsafe {
        libc::write(fd, record.as_ptr().cast(), record.len());
    }
}

unsafe fn spawn() {
    // The mark of this harness's bots, made before the fork (the child must not allocate).
    let mut mark = [0u8; 64];
    let text = format!("{}={}.", super::BOT_ID_VAR, std::process::id());
    let len = text.len().min(mark.len());
    mark[..len].copy_from_slice(&text.as_bytes()[..len]);
    let mut fds = [0i32; 2];
    // SAFETY (all below): plain system calls on descriptors this function made.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return;
        }
        match libc::fork() {
            -1 => {
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
            0 => watch(fds[0], fds[1], &mark[..len]),
            child => {
                libc::close(fds[0]);
                let flags = libc::fcntl(fds[1], libc::F_GETFL);
                libc::fcntl(fds[1], libc::F_SETFL, flags | libc::O_NONBLOCK);
                WRITE_FD.store(fds[1], Ordering::SeqCst);
                PID.store(child, Ordering::SeqCst);
            }
        }
    }
}

/// The guardian's life: reads the groups until the pipe closes, then kills what is left.
unsafe fn watch(read_fd: i32, write_fd: i32, mark: &[u8]) -> ! {
    // SAFETY (all below): system calls with valid arguments, on stack buffers.
    unsafe {
        libc::close(write_fd);
        // Only the pipe stays open: the guardian holds no output file, lock or terminal.
        for fd in 0..read_fd {
            libc::close(fd);
        }
        if libc::syscall(libc::SYS_close_range, read_fd as u32 + 1, u32::MAX, 0u32) != 0 {
            for fd in read_fd + 1..65536 {
                libc::close(fd);
            }
        }
        for sig in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGPIPE,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
        ] {
            libc::signal(sig, libc::SIG_IGN);
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        // Out of the harness's group and session: a kill of the job's group spares it.
        libc::setsid();
        libc::prctl(
            libc::PR_SET_NAME,
            c"aeroplane-guard".as_ptr() as libc::c_ulong,
            0,
            0,
            0,
        );
        let mut groups = [0i32; GROUPS];
        let mut record = [0u8; 8];
        loop {
            let n = libc::read(read_fd, record.as_mut_ptr().cast(), record.len());
            if n == 8 {
                let pgid = i32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
                if record[4] == 1 {
                    if let Some(slot) = groups.iter_mut().find(|g| **g == 0) {
                        *slot = pgid;
                    }
                } else if let Some(slot) = groups.iter_mut().find(|g| **g == pgid) {
                    *slot = 0;
                }
                continue;
            }
            if n < 0 && *libc::__errno_location() == libc::EINTR {
                continue;
            }
            break;
        }
        for &g in groups.iter().filter(|&&g| g > 0) {
            libc::kill(-g, libc::SIGKILL);
        }
        // Killing a marked process may leave its marked children to be found by a next pass,
        // and a process caught in the middle of an exec shows no environment yet (the new
        // program's is set up after the old one's descriptors close, so its parent may already
        // have moved on): pass again, after a pause, until a pass kills nothing and finds no
        // process undecided, for at most about a second.
        for _ in 0..UNDECIDED_PASSES {
            let (killed, undecided) = kill_marked(mark);
            if killed == 0 && undecided == 0 {
                break;
            }
            if killed == 0 {
                let pause = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 5_000_000,
                };
                libc::nanosleep(&pause, std::ptr::null_mut());
            }
        }
        libc::_exit(0)
    }
}

/// The most passes of [`kill_marked`] after the harness ends (5 ms apart while a pass finds
/// processes undecided: about a second).
const UNDECIDED_PASSES: usize = 200;

/// What a process's environment says of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// It holds the mark: one of this harness's bots or their descendants.
    Marked,
    /// It does not.
    Unmarked,
    /// None to read though the process is a live user process: it is in the middle of an
    /// exec (or has cleared its environment); look again.
    Undecided,
}

/// Kills every process whose environment holds an entry starting with `mark`; returns how
/// many, and how many live processes showed no environment ([`Mark::Undecided`]). Reads
/// /proc with `getdents64` into stack buffers.
unsafe fn kill_marked(mark: &[u8]) -> (usize, usize) {
    let mut killed = 0;
    let mut undecided = 0;
    // SAFETY (all below): system calls on stack buffers and descriptors opened here.
    unsafe {
        let dir = libc::open(
            c"/proc".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if dir < 0 {
            return (0, 0);
        }
        let me = libc::getpid();
        let mut entries = [0u8; 8192];
        loop {
            let n = libc::syscall(
                libc::SYS_getdents64,
                dir,
                entries.as_mut_ptr(),
                entries.len(),
            );
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            while at + 19 < n as usize {
                let reclen = u16::from_ne_bytes([entries[at + 16], entries[at + 17]]) as usize;
                let name = &entries[at + 19..(at + reclen).min(n as usize)];
                let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                let name = &name[..end];
                if let Some(pid) = parse_pid(name)
                    && pid != me
                {
                    match carries(name, mark) {
                        Mark::Marked => {
                            libc::kill(pid, libc::SIGKILL);
                            killed += 1;
                        }
                        Mark::Undecided => undecided += 1,
                        Mark::Unmarked => {}
                    }
                }
                if reclen == 0 {
                    break;
                }
                at += reclen;
            }
        }
        libc::close(dir);
    }
    (killed, undecided)
}

/// A /proc entry's name as a pid, if it is all digits.
fn parse_pid(name: &[u8]) -> Option<i32> {
    if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(name.iter().fold(0i32, |n, &d| n * 10 + (d - b'0') as i32))
}

/// The `PF_KTHREAD` bit of a task's flags (the ninth field of /proc/PID/stat).
const PF_KTHREAD: u64 = 0x0020_0000;

/// Reads the file `/proc/<pid>/<file>` (`file` NUL-terminated) into `buf`; returns how many
/// bytes, or `None` if it cannot be opened.
unsafe fn read_proc(pid: &[u8], file: &[u8], buf: &mut [u8]) -> Option<usize> {
    let mut path = [0u8; 40];
    let parts: [&[u8]; 3] = [b"/proc/", pid, file];
    let mut len = 0;
    for part in parts {
        path[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    // SAFETY: a NUL-terminated path; reads into the caller's buffer.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let mut got = 0usize;
        while got < buf.len() {
            let n = libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got);
            if n <= 0 {
                break;
            }
            got += n as usize;
        }
        libc::close(fd);
        Some(got)
    }
}

/// Whether the process named `pid` (its /proc entry) has an environment entry starting with
/// `mark` (within the first 64 KiB of its environment). An empty environment is
/// [`Mark::Undecided`] unless the process is a kernel thread or already dead ([`live_stat`]).
unsafe fn carries(pid: &[u8], mark: &[u8]) -> Mark {
    let mut env = [0u8; 65536];
    // SAFETY: reads into a stack buffer.
    let Some(got) = (unsafe { read_proc(pid, b"/environ\0", &mut env) }) else {
        return Mark::Unmarked;
    };
    if env[..got]
        .split(|&b| b == 0)
        .any(|var| var.starts_with(mark))
    {
        return Mark::Marked;
    }
    let mut stat = [0u8; 1024];
    // SAFETY: reads into a stack buffer.
    match (got, unsafe { read_proc(pid, b"/stat\0", &mut stat) }) {
        (0, Some(n)) if live_stat(&stat[..n]) => Mark::Undecided,
        _ => Mark::Unmarked,
    }
}

/// Whether a /proc/PID/stat line is a live user process's: not a zombie or dead, not a
/// kernel thread. `pid (comm) state ppid pgrp session tty_nr tpgid flags ...`; the name may
/// hold spaces and parentheses.
fn live_stat(stat: &[u8]) -> bool {
    let Some(close) = stat.iter().rposition(|&b| b == b')') else {
        return false;
    };
    let mut fields = stat[close + 1..]
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty());
    let state = fields.next().and_then(|f| f.first().copied());
    let flags = fields.nth(5).map(|f| {
        f.iter()
            .take_while(|b| b.is_ascii_digit())
            .fold(0u64, |n, &d| {
                n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'))
            })
    });
    match (state, flags) {
        (Some(b'Z' | b'X' | b'x'), _) | (None, _) | (_, None) => false,
        (_, Some(flags)) => flags & PF_KTHREAD == 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_says_whether_a_process_is_a_live_user_process() {
        // Fields after the name: state, ppid, pgrp, session, tty_nr, tpgid, flags.
        assert!(live_stat(b"42 (python3) S 1 42 42 0 -1 4194560 0 0"));
        assert!(live_stat(b"42 (a (b) c) R 1 42 42 0 -1 4194304 0"));
        assert!(!live_stat(b"42 (python3) Z 1 42 42 0 -1 4227084 0"));
        assert!(!live_stat(b"2 (kthreadd) S 0 0 0 0 -1 2129984 0"));
        assert!(!live_stat(b"42 (short) S 1"));
        assert!(!live_stat(b"no name"));
    }

    #[test]
    fn this_process_is_marked_by_its_own_environment_and_a_kernel_thread_is_not_undecided() {
        let me = std::process::id().to_string();
        // SAFETY: reads /proc into stack buffers.
        unsafe {
            assert_eq!(carries(me.as_bytes(), b"PATH="), Mark::Marked);
            assert_eq!(carries(me.as_bytes(), b"NO_SUCH_VAR_EVER="), Mark::Unmarked);
            // kthreadd (pid 2) has no environment and is no user process.
            if std::fs::read_to_string("/proc/2/stat").is_ok_and(|s| s.contains("(kthreadd)")) {
                assert_eq!(carries(b"2", b"PATH="), Mark::Unmarked);
            }
            assert_eq!(carries(b"999999999", b"PATH="), Mark::Unmarked);
        }
        // A live process with no environment (as one in the middle of an exec shows) is
        // undecided: the guardian looks again.
        let mut bare = std::process::Command::new("sleep")
            .arg("30")
            .env_clear()
            .spawn()
            .expect("sleep runs");
        let pid = bare.id().to_string();
        // SAFETY: reads /proc into stack buffers.
        let mark = unsafe { carries(pid.as_bytes(), b"PATH=") };
        bare.kill().expect("kill");
        bare.wait().expect("reaped");
        assert_eq!(mark, Mark::Undecided);
    }

    #[test]
    fn pids_are_read_from_proc_names() {
        assert_eq!(parse_pid(b"1234"), Some(1234));
        assert_eq!(parse_pid(b"self"), None);
        assert_eq!(parse_pid(b""), None);
    }
}
