package concbench.spring.webflux;

import reactor.netty.ReactorNetty;

/**
 * Reactor Netty's event loops (server and WebClient share them), sized before any Reactor Netty
 * class loads. Reactor Netty's default is max(CPUs, 4) (LoopResources.DEFAULT_IO_WORKER_COUNT),
 * a floor that puts 4 event loops on a 1-CPU server; here it is one event loop per CPU the process
 * sees (Runtime.availableProcessors(): the affinity mask and cgroup quota), through Reactor
 * Netty's own system property reactor.netty.ioWorkerCount. The system property
 * concbench.webflux.loops picks: "cpus" (the default) or "stock" (Reactor Netty's default, the
 * spring-webflux-stock variant). A reactor.netty.ioWorkerCount given on the command line wins.
 */
final class EventLoopSizing {
    static final String CHOICE_PROPERTY = "concbench.webflux.loops";

    private EventLoopSizing() {
    }

    /** Sets reactor.netty.ioWorkerCount; an unknown choice exits 2. */
    static void apply() {
        String choice = System.getProperty(CHOICE_PROPERTY, "cpus");
        switch (choice) {
            case "stock" -> { }
            case "cpus" -> {
                if (System.getProperty(ReactorNetty.IO_WORKER_COUNT) == null) {
                    System.setProperty(ReactorNetty.IO_WORKER_COUNT,
                            String.valueOf(Runtime.getRuntime().availableProcessors()));
                }
            }
            default -> {
                System.err.println("concbench-spring: -D" + CHOICE_PROPERTY + " must be cpus or stock, not '"
                        + choice + "'");
                System.exit(2);
            }
        }
    }

    /** The ready line's name for the choice in effect. */
    static String choice() {
        return System.getProperty(CHOICE_PROPERTY, "cpus");
    }
}
