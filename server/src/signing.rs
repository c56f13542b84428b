//! The threads that sign creates: as many as the machine has cores, taking creates in the order they came.
//!
//! A signature is ~0.3–0.7 ms of CPU. Run on tokio's blocking pool, every create in flight (64 under the load test)
//! was a runnable thread at once, and the engine's writer, which every request waits for twice, got one share of
//! the CPU among them: groups were late and latency queued behind it. With one signing thread per core the writer
//! and the HTTP threads compete with two threads, not sixty.
//!
//! The signing threads also run a few steps below the rest of the process ([`SIGNING_NICENESS`]): every request waits
//! for the writer twice, and when it waited behind a signature for a CPU, the whole group did. With the writer first,
//! signatures still get every cycle the writer and the HTTP threads leave; under wrk the creates' p99 fell from
//! 150–200 ms to ~120 ms at the same throughput (docs/benchmarks.md).

use kuatia_core::sign::Signer;
use kuatia_service::{CreateJob, SignedCreate};
use prometheus_client::metrics::gauge::Gauge;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// A create to sign and where its signed form goes.
struct Task {
    job: Box<CreateJob>,
    signer: Option<Arc<dyn Signer>>,
    done: oneshot::Sender<SignedCreate>,
}

/// The signing threads; they stop when this is dropped.
#[derive(Debug)]
pub struct Signing {
    queue: Sender<Task>,
    /// Creates sent and not yet taken by a thread (`kuatia_signing_queue_depth`).
    waiting: Gauge,
}

impl Signing {
    /// `threads` signing threads (at least one); `waiting` counts the creates not yet taken by one.
    pub fn start(threads: usize, waiting: Gauge) -> Result<Signing, String> {
        let (queue, tasks) = channel::<Task>();
        let tasks = Arc::new(Mutex::new(tasks));
        for i in 0..threads.max(1) {
            let (tasks, waiting) = (tasks.clone(), waiting.clone());
            std::thread::Builder::new()
                .name(format!("kuatia-sign-{i}"))
                .spawn(move || sign_loop(&tasks, &waiting))
                .map_err(|e| format!("starting a signing thread: {e}"))?;
        }
        Ok(Signing { queue, waiting })
    }

    /// Signs `job` on a signing thread; `None` if it could not be signed (the threads are gone, or a bug of ours
    /// panicked in it).
    pub async fn sign(
        &self,
        job: Box<CreateJob>,
        signer: Option<Arc<dyn Signer>>,
    ) -> Option<SignedCreate> {
        let (done, signed) = oneshot::channel();
        let task = Task { job, signer, done };
        self.waiting.inc();
        if self.queue.send(task).is_err() {
            self.waiting.dec();
            return None;
        }
        signed.await.ok()
    }
}

/// One signing thread: takes the next create (in arrival order), signs it, hands it back.
fn sign_loop(tasks: &Mutex<Receiver<Task>>, waiting: &Gauge) {
    yield_to_latency_threads();
    loop {
        // The lock is held only while waiting for the next task; a poisoned one still guards a valid receiver.
        let next = tasks.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(Task { job, signer, done }) = next else {
            return;
        };
        waiting.dec();
        // A panic drops `done`: the request is answered 500 and its reserved number stays a listed gap.
        if let Ok(signed) = catch_unwind(AssertUnwindSafe(|| job.sign(signer.as_deref()))) {
            let _ = done.send(signed);
        }
    }
}

/// How many nice steps the signing threads run below the process (Linux; CFS gives a thread ~1.25 × less weight per
/// step).
pub const SIGNING_NICENESS: i32 = 5;

/// Lowers the calling thread's priority by [`SIGNING_NICENESS`] (a failure leaves it as it was: only latency suffers).
#[allow(unsafe_code)]
fn yield_to_latency_threads() {
    // On Linux, PRIO_PROCESS with 0 names the calling thread, not the process.
    #[cfg(target_os = "linux")]
    // SAFETY: getpriority and setpriority only read their integer arguments.
    unsafe {
        let now = libc::getpriority(libc::PRIO_PROCESS, 0);
        libc::setpriority(libc::PRIO_PROCESS, 0, now.saturating_add(SIGNING_NICENESS));
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #![allow(clippy::unwrap_used)]

    /// The nice value in a thread's `stat` file (field 19; after the name's closing parenthesis, state is field 3).
    fn nice_in(stat_file: &std::path::Path) -> i64 {
        let stat = std::fs::read_to_string(stat_file).unwrap();
        let rest = stat.rsplit_once(')').unwrap().1;
        rest.split_whitespace().nth(16).unwrap().parse().unwrap()
    }

    /// The nice value of every thread of this process whose name starts with `prefix`.
    fn nice_of(prefix: &str) -> Vec<i64> {
        let mut out = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let dir = task.unwrap().path();
            let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
            if comm.trim().starts_with(prefix) {
                out.push(nice_in(&dir.join("stat")));
            }
        }
        out
    }

    #[test]
    fn signing_threads_run_below_the_rest_of_the_process() {
        let own = nice_in(std::path::Path::new("/proc/thread-self/stat"));
        let _signing = super::Signing::start(2, Default::default()).unwrap();
        let mut seen = Vec::new();
        for _ in 0..200 {
            seen = nice_of("kuatia-sign-");
            if seen.len() >= 2 && seen.iter().all(|n| *n != own) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let expected = (own + i64::from(super::SIGNING_NICENESS)).min(19);
        assert!(seen.len() >= 2, "signing threads not found: {seen:?}");
        assert!(
            seen.iter().all(|n| *n == expected),
            "nice {seen:?}, expected {expected} (process {own})"
        );
    }
}
