//! Processes under a watchdog, several side by side.
//!
//! Each process runs in a process group of its own, so that the watchdog kills it with
//! everything it started (compute-sanitizer starts the program it checks as a child).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::outcome::ProcessRecord;

/// Runs `command` (stdout and stderr captured) and kills its process group after `limit`.
/// Returns the record and the time it ran.
pub fn run_with_watchdog(
    command: &mut Command,
    limit: Duration,
) -> std::io::Result<(ProcessRecord, Duration)> {
    let started = Instant::now();
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).spawn()?;
    let readers: Vec<thread::JoinHandle<String>> = [
        child.stdout.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>),
        child.stderr.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|mut pipe| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    })
    .collect();
    let (timed_out, status) = match child.wait_timeout(limit)? {
        Some(status) => (false, status),
        None => {
            kill_group(child.id());
            (true, child.wait()?)
        }
    };
    // The group may hold the pipes open past the leader's exit: make sure it is gone.
    kill_group(child.id());
    let elapsed = started.elapsed();
    let output =
        readers.into_iter().map(|reader| reader.join().unwrap_or_default()).collect::<Vec<_>>().join("");
    Ok((
        ProcessRecord { timed_out, exit_code: if timed_out { None } else { status.code() }, output },
        elapsed,
    ))
}

fn kill_group(leader: u32) {
    // SAFETY: `killpg` only sends a signal; the group is the one this module created for the
    // child (its id is the group id), and a group that no longer exists gives ESRCH.
    unsafe {
        libc::killpg(leader as libc::pid_t, libc::SIGKILL);
    }
}

/// Runs `work` on every item with `jobs` threads side by side; the results keep the items'
/// order.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], jobs: usize, work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let index = {
                        let mut next = next.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                        let index = *next;
                        *next += 1;
                        index
                    };
                    let Some(item) = items.get(index) else { break };
                    let result = work(item);
                    results.lock().unwrap_or_else(|poisoned| poisoned.into_inner())[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .into_iter()
        .map(|result| result.expect("every item was run"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_process_past_its_limit_is_killed_with_its_children_and_marked_timed_out() {
        // The child starts a grandchild that would hold the pipes open for a minute, and prints
        // its process id.
        let (record, _) =
            run_with_watchdog(&mut shell("sleep 60 & echo $!; sleep 60"), Duration::from_millis(300))
                .unwrap();
        assert!(record.timed_out);
        assert_eq!(record.exit_code, None);
        let grandchild: u32 = record.output.trim().parse().unwrap();
        // The group was killed: the grandchild is gone, or a zombie waiting to be reaped, once
        // the kernel has finished delivering the signal (polled, not timed).
        let running = || {
            let state = std::fs::read_to_string(format!("/proc/{grandchild}/stat")).unwrap_or_default();
            state.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()).is_some_and(|s| s != "Z")
        };
        let mut polls = 0;
        while running() && polls < 500 {
            std::thread::sleep(Duration::from_millis(10));
            polls += 1;
        }
        assert!(!running(), "the grandchild {grandchild} outlived the watchdog");
    }

    #[test]
    fn a_process_that_finishes_keeps_its_status_and_both_streams() {
        let (record, _) =
            run_with_watchdog(&mut shell("echo out; echo err >&2; exit 3"), Duration::from_secs(30)).unwrap();
        assert!(!record.timed_out);
        assert_eq!(record.exit_code, Some(3));
        assert!(record.output.contains("out") && record.output.contains("err"));
    }

    #[test]
    fn parallel_work_keeps_the_order_of_its_items() {
        let items: Vec<u64> = (0..20).collect();
        let doubled = in_parallel(&items, 4, |item| item * 2);
        assert_eq!(doubled, items.iter().map(|item| item * 2).collect::<Vec<_>>());
    }
}
