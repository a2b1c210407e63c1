package concbench.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The http-aggregate parameters, bound from the command-line properties the launcher builds
 * ({@code --concbench.base-ms=...}). poolSize is accepted and ignored: no Spring design here is
 * sized by pool-size (Tomcat's, the async pools' and Netty's sizes are the designs' own).
 */
@ConfigurationProperties("concbench")
public record AggregateProperties(long baseMs, long detailMs, long extraMs, String downstream,
        String backendHost, int backendPort, int poolSize) {
}
