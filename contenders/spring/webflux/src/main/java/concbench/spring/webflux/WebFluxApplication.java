package concbench.spring.webflux;

import concbench.spring.AggregateProperties;
import concbench.spring.Launcher;
import concbench.spring.Waits;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/** Spring WebFlux on Reactor Netty (the only server on this application's classpath). */
@SpringBootApplication
@EnableConfigurationProperties(AggregateProperties.class)
@Import(Waits.class) // http-aggregate's proof of its in-process waits (GET /waits), from common
public class WebFluxApplication {

    public static void main(String[] args) {
        EventLoopSizing.apply(); // before any Reactor Netty class reads reactor.netty.ioWorkerCount
        Launcher.run(WebFluxApplication.class, List.of("webflux"),
                Map.of("reactor-netty", Launcher.jarVersion(reactor.netty.http.server.HttpServer.class),
                        "netty", Launcher.jarVersion(io.netty.channel.Channel.class),
                        "reactor-core", Launcher.jarVersion(reactor.core.publisher.Mono.class)),
                args);
    }
}
