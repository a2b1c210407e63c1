package concbench.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import sun.misc.Signal;

/**
 * SIGTERM: close the application context and exit 0.
 *
 * <p>On SIGTERM the JVM runs its shutdown hooks (Spring Boot's hook closes the context) and then
 * exits with 128 + 15 = 143; Spring cannot change that status (spring-boot#10697: "out of Boot's
 * control"). concbench's contract asks for 0, so this replaces the JVM's TERM handler with one
 * that does what Boot's hook does, as an orderly exit: {@link SpringApplication#exit} closes the
 * context (web server stopped first, then executors, pools) and returns the ExitCodeGenerator
 * status (0), then {@code System.exit} runs the remaining hooks (Boot's sees the context closed).
 * {@code sun.misc.Signal} is the JDK's supported-but-internal signal API (module jdk.unsupported).
 */
final class TermExit {
    private TermExit() {
    }

    static void install(ConfigurableApplicationContext ctx) {
        Signal.handle(new Signal("TERM"), signal -> System.exit(SpringApplication.exit(ctx)));
    }
}
