import NIOCore

/// Runs a task's jobs on a PostgreSQL connection's event loop, so that a call awaiting one
/// answer after another (a transaction's statements) resumes on the thread that read the
/// answer, instead of waking a thread of the cooperative pool for every statement.
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
