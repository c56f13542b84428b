//! Group commit. A request's store work is queued; a writer thread per engine takes every queued request and runs
//! them in one transaction, each behind its own savepoint (one that fails is rolled back alone), commits once, and
//! only then hands each request its answer. So a 201 still means the invoice is on disk, and the requests that waited
//! together share one sync instead of paying one each. Signing is not store work: a create is split around it
//! ([`kuatia_service::Service::handle_step`]), so signatures run in parallel outside the engine.

use crate::faults::StoreError;
use crate::pool::Engines;
use crate::{Backend, Engine, SystemHost};
use kuatia_service::storage::StorageFault;
use kuatia_service::Service;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use tokio::sync::oneshot;

/// Why a request's store work produced no answer.
#[derive(Debug, Clone)]
pub enum Failed {
    /// The store failed; the request's writes were rolled back.
    Store(StoreError),
    /// A bug of ours panicked inside it; its writes were rolled back.
    Panic,
}

/// Store work of one request.
type Work = Box<dyn FnOnce(&mut Service<Backend>, &mut SystemHost) + Send>;

/// A queued request: its work and where to say how it ended (after the commit).
struct Job {
    work: Work,
    done: oneshot::Sender<Result<(), Failed>>,
}

/// The queue in front of the engines, with one writer thread per engine that runs it.
#[derive(Debug)]
pub struct Committer {
    shared: Arc<Shared>,
    writers: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

/// What the requests and the writers share.
#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct Queue {
    jobs: Vec<Job>,
    stopped: bool,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job").finish_non_exhaustive()
    }
}

impl Shared {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // A list of jobs stays consistent whatever panicked while it was held.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Committer {
    /// A queue in front of `engines`, with a writer thread for each (they stop when the committer is dropped).
    pub fn new(engines: &Engines) -> Result<Committer, String> {
        let shared = Arc::new(Shared::default());
        let mut writers = Vec::new();
        for (i, engine) in engines.all().iter().enumerate() {
            let (shared, engine) = (shared.clone(), engine.clone());
            writers.push(
                std::thread::Builder::new()
                    .name(format!("kuatia-writer-{i}"))
                    .spawn(move || writer(&shared, &engine))
                    .map_err(|e| format!("starting a writer thread: {e}"))?,
            );
        }
        Ok(Committer {
            shared,
            writers: Mutex::new(writers),
        })
    }

    /// Stops the writers once the queued requests are answered, and waits for them (blocking), so that the engines
    /// they held are released when it returns. Later requests fail.
    pub fn stop(&self) {
        self.shared.queue().stopped = true;
        self.shared.ready.notify_all();
        let writers = std::mem::take(&mut *self.writers.lock().unwrap_or_else(|p| p.into_inner()));
        for w in writers {
            let _ = w.join();
        }
    }

    /// Runs `work` in a transaction shared with the requests queued meanwhile; returns its result once that
    /// transaction is committed, waiting for it without holding a thread.
    pub async fn call<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Service<Backend>, &mut SystemHost) -> T + Send + 'static,
    ) -> Result<T, Failed> {
        let slot = Arc::new(Mutex::new(None));
        let out = slot.clone();
        let (done, ended) = oneshot::channel();
        {
            let mut queue = self.shared.queue();
            if queue.stopped {
                // Shutting down: nothing was done, so the client may retry (on another node, or after the restart).
                return Err(Failed::Store(StoreError {
                    fault: StorageFault::ShuttingDown,
                    message: "the committer has stopped".into(),
                }));
            }
            // The caller's span (the request and its `request_id`) on what the work logs on the writer's thread.
            let span = tracing::Span::current();
            queue.jobs.push(Job {
                work: Box::new(move |svc, host| {
                    let value = span.in_scope(|| work(svc, host));
                    *out.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
                }),
                done,
            });
        }
        self.shared.ready.notify_one();
        // Answered after its group's commit; a sender dropped unanswered means its work panicked past the guard.
        ended.await.unwrap_or(Err(Failed::Panic))?;
        let value = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
        value.ok_or(Failed::Panic)
    }
}

impl Drop for Committer {
    fn drop(&mut self) {
        self.shared.queue().stopped = true;
        self.shared.ready.notify_all();
    }
}

/// A writer: waits for jobs, takes every queued one and runs them as one group on its engine. While it commits (the
/// sync), the next group gathers.
fn writer(shared: &Shared, engine: &Mutex<Engine>) {
    loop {
        let group = {
            let mut queue = shared.queue();
            while queue.jobs.is_empty() && !queue.stopped {
                queue = shared.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
            if queue.jobs.is_empty() {
                return;
            }
            std::mem::take(&mut queue.jobs)
        };
        crate::lock(engine).run_group(group);
    }
}

impl Engine {
    /// One transaction for the group: each job behind a savepoint, one commit, then every job's outcome.
    fn run_group(&mut self, group: Vec<Job>) {
        if let Err(e) = self.service.store.begin() {
            for job in group {
                let _ = job.done.send(Err(Failed::Store(e.clone())));
            }
            return;
        }
        self.refresh_signers();
        let mut outcomes = Vec::with_capacity(group.len());
        let mut broken = None;
        for job in group {
            let outcome = match &broken {
                Some(e) => Err(Failed::Store(StoreError::clone(e))),
                None => match self.run_one(job.work) {
                    Ok(outcome) => outcome,
                    Err(e) => {
                        broken = Some(e.clone());
                        Err(Failed::Store(e))
                    }
                },
            };
            outcomes.push((job.done, outcome));
        }
        let commit = match broken {
            // Part of a failed request could not be undone: nothing of the group is kept.
            Some(e) => {
                self.service.store.rollback();
                Err(e)
            }
            None => self.service.store.finish(),
        };
        if commit.is_err() {
            // The simulated SIFEN's moves of the group were undone with it.
            self.service.reschedule();
        }
        // Before any answer: a client that reads right after its 201 must not find the readers on an older window.
        self.publish_tick_window();
        for (done, outcome) in outcomes {
            let outcome = match &commit {
                Ok(()) => outcome,
                Err(e) => Err(Failed::Store(e.clone())),
            };
            let _ = done.send(outcome);
        }
    }

    /// Runs one job behind a savepoint: `Ok` with the job's outcome, or `Err` when its writes could not be undone
    /// (then the whole transaction must go).
    fn run_one(&mut self, work: Work) -> Result<Result<(), Failed>, StoreError> {
        if let Err(e) = self.service.store.savepoint() {
            return Ok(Err(Failed::Store(e)));
        }
        let (service, host) = (&mut self.service, &mut self.host);
        let ran = catch_unwind(AssertUnwindSafe(|| work(service, host)));
        let failed = match (ran, self.service.store.take_error()) {
            (Ok(()), None) => None,
            (_, Some(e)) => Some(Failed::Store(e)),
            (Err(_), None) => Some(Failed::Panic),
        };
        match failed {
            None => self.service.store.release().map(Ok),
            Some(f) => {
                self.service.reschedule();
                self.service.store.rollback_request()?;
                Ok(Err(f))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{Committer, Failed};
    use crate::pool::Engines;
    use kuatia_service::storage::StorageFault;
    use std::sync::{Arc, Mutex};

    /// Work that arrives after the writers stopped is refused as a transient fault (503 with `Retry-After`, so the
    /// client retries elsewhere or later), not as a bug of ours (500); work queued before the stop is done.
    #[tokio::test]
    async fn work_after_the_stop_is_refused_as_shutting_down() {
        let dir = std::env::temp_dir().join(format!("kuatia-commit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = crate::ServerConfig::new(dir.clone());
        let engine = crate::open_engine(&config, "http://127.0.0.1").unwrap();
        let engines = Engines::new(Arc::new(Mutex::new(engine)), Vec::new());
        let committer = Committer::new(&engines).unwrap();
        assert_eq!(committer.call(|_, _| 7).await.unwrap(), 7);
        committer.stop();
        match committer.call(|_, _| 8).await {
            Err(Failed::Store(e)) => assert_eq!(e.fault, StorageFault::ShuttingDown),
            other => panic!("{other:?}"),
        }
        let r = kuatia_service::storage::failure_response(StorageFault::ShuttingDown);
        assert_eq!((r.status, r.header("Retry-After")), (503, Some("5")));
        drop(engines);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
