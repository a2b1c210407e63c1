package concbench;

import java.util.Set;

/** One concurrency style: which workloads it implements and how to set one up. */
interface Style {
    Set<String> workloads();

    /** Validates the workload's parameters (Params.BadInput on bad ones) and creates long-lived objects (executors). */
    Work.Iteration setUp(String workload, Params p) throws Params.BadInput;

    default void close() {}
}
