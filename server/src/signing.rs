//! The threads that sign creates: as many as the machine has cores, taking creates in the order they came.
//!
//! A signature is ~0.3–0.7 ms of CPU. Run on tokio's blocking pool, every create in flight (64 under the load test)
//! was a runnable thread at once, and the engine's writer, which every request waits for twice, got one share of
//! the CPU among them: groups were late and latency queued behind it. With one signing thread per core the writer
//! and the HTTP threads compete with two threads, not sixty.

use kuatia_core::api::{CreateJob, SignedCreate};
use kuatia_core::sign::Signer;
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
}

impl Signing {
    /// `threads` signing threads (at least one).
    pub fn start(threads: usize) -> Result<Signing, String> {
        let (queue, tasks) = channel::<Task>();
        let tasks = Arc::new(Mutex::new(tasks));
        for i in 0..threads.max(1) {
            let tasks = tasks.clone();
            std::thread::Builder::new()
                .name(format!("kuatia-sign-{i}"))
                .spawn(move || sign_loop(&tasks))
                .map_err(|e| format!("starting a signing thread: {e}"))?;
        }
        Ok(Signing { queue })
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
        self.queue.send(task).ok()?;
        signed.await.ok()
    }
}

/// One signing thread: takes the next create (in arrival order), signs it, hands it back.
fn sign_loop(tasks: &Mutex<Receiver<Task>>) {
    loop {
        // The lock is held only while waiting for the next task; a poisoned one still guards a valid receiver.
        let next = tasks.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(Task { job, signer, done }) = next else {
            return;
        };
        // A panic drops `done`: the request is answered 500 and its reserved number stays a listed gap.
        if let Ok(signed) = catch_unwind(AssertUnwindSafe(|| job.sign(signer.as_deref()))) {
            let _ = done.send(signed);
        }
    }
}
