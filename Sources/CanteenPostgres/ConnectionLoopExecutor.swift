import NIOCore

/// Runs a task's jobs on a PostgreSQL connection's event loop, so that a transaction awaiting
/// one answer after another resumes on the thread that read each answer, instead of waking a
/// thread of the cooperative pool for every statement. Only transactions use it: a call of one
/// statement would trade one hop for two (onto the loop and back), and its rows' decoding would
/// hold up the loop's other connections.
final class ConnectionLoopExecutor: TaskExecutor {
    private let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
