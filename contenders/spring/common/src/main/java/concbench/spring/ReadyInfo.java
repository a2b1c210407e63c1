package concbench.spring;

import java.util.Map;

/** A bean that adds what it observed (server, threads, pools) to the ready line's runtime object. */
@FunctionalInterface
public interface ReadyInfo {
    void contribute(Map<String, Object> runtime);
}
