package concbench.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;

/** The main of both applications: concbench arguments in, SpringApplication.run out. */
public final class Launcher {
    private Launcher() {
    }

    /**
     * @param libraries for {@code --version}: the version of each library printed besides Spring's
     */
    public static void run(Class<?> application, List<String> designs, Map<String, Supplier<String>> libraries,
            String[] args) {
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println(versions(libraries));
            return;
        }
        ServerArgs parsed;
        try {
            parsed = ServerArgs.parse(args, designs);
        } catch (ServerArgs.UsageError e) {
            System.err.println("concbench-spring: " + e.getMessage());
            System.exit(2);
            return;
        }
        SpringApplication app = new SpringApplication(application);
        app.addListeners(new ReadyLine());
        try {
            app.run(parsed.springArgs());
        } catch (RuntimeException e) {
            // start-up failed (port taken, bad configuration): Spring has logged the cause on stderr
            System.err.println("concbench-spring: start-up failed: " + e);
            System.exit(1);
        }
    }

    /** The manifest Implementation-Version of the jar that holds this class. */
    public static Supplier<String> jarVersion(Class<?> type) {
        return () -> type.getPackage().getImplementationVersion();
    }

    private static String versions(Map<String, Supplier<String>> libraries) {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("spring-boot", SpringBootVersion.getVersion());
        v.put("spring-framework", SpringVersion.getVersion());
        v.put("jackson-databind", BootJson.version());
        new TreeMap<>(libraries).forEach((name, version) -> v.put(name, version.get()));
        StringBuilder out = new StringBuilder();
        v.forEach((name, version) -> out.append(out.isEmpty() ? "" : " ").append(name).append(' ').append(version));
        return out.toString();
    }
}
