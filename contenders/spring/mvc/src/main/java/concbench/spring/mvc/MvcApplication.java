package concbench.spring.mvc;

import concbench.spring.AggregateProperties;
import concbench.spring.BootJson;
import concbench.spring.Launcher;
import concbench.spring.Waits;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * Spring MVC on embedded Tomcat. The design is a Spring profile (application-<design>.properties):
 * sequential, sequential-stock, sequential-cpu-threads, virtual, async-small, async-tuned, async-large (the
 * async-* ones are in the profile group "async"; all but sequential-stock in "tomcat-deployed").
 */
@SpringBootApplication
@EnableConfigurationProperties(AggregateProperties.class)
// from common: http-aggregate's proof of its in-process waits (GET /waits); Boot's Jackson mapper
// as JSON writers (GET /waits, and GET /user/{id} in the bytes form: UserJson)
@Import({Waits.class, BootJson.class})
public class MvcApplication {

    public static void main(String[] args) {
        UserJson.check();
        Launcher.run(MvcApplication.class,
                List.of("sequential", "sequential-stock", "sequential-cpu-threads", "virtual", "async-small", "async-tuned", "async-large"),
                Map.of("tomcat", org.apache.catalina.util.ServerInfo::getServerNumber,
                        "httpclient5", Launcher.jarVersion(org.apache.hc.client5.http.impl.classic.HttpClients.class)),
                args);
    }
}
