package concbench.spring.mvc;

import jakarta.servlet.http.HttpServletRequest;
import java.io.File;
import java.util.Map;
import org.apache.catalina.connector.Connector;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.embedded.tomcat.TomcatWebServer;
import org.springframework.boot.web.error.ErrorAttributeOptions;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.error.ErrorAttributes;
import org.springframework.boot.web.servlet.error.ErrorController;
import org.springframework.context.ApplicationContext;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.ServletWebRequest;

/**
 * The Spring Boot types of the MVC application that Boot 4 moved into its new modules
 * (spring-boot-tomcat, spring-boot-webmvc, spring-boot-web-server); the shared sources use them
 * only through this class. src/boot4/java has it with Boot 4's packages, src/boot3/java with
 * Boot 3.5's: the two files differ in their imports and in JSON_DEFAULT alone.
 */
final class BootWeb {
    private BootWeb() {
    }

    /** GET /user/{id}'s JSON form unless concbench.json says otherwise ({@link UserJson}): Boot 3.5's Jackson converter flushes the stream, which commits the response without a length (chunked). */
    static final String JSON_DEFAULT = "bytes";

    /** The started Tomcat's connector. */
    static Connector connector(ApplicationContext ctx) {
        var server = (TomcatWebServer) ((WebServerApplicationContext) ctx).getWebServer();
        return server.getTomcat().getConnector();
    }

    /** Settings applied to the connector of Boot's Tomcat (a customizer of its factory). */
    abstract static class ConnectorSettings implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {
        @Override
        public final void customize(TomcatServletWebServerFactory factory) {
            factory.addConnectorCustomizers(this::apply);
        }

        abstract void apply(Connector connector);
    }

    /**
     * Tomcat's base and docbase folders in the run's own temporary directory (TMPDIR, which the harness removes
     * after the run): by default Boot makes both under java.io.tmpdir on every start and never removes them. The
     * JVM reads java.io.tmpdir once, at start, and ignores TMPDIR, so the folders are named here.
     */
    @Component
    static class TempFolders implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {
        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            String tmpdir = System.getenv("TMPDIR");
            if (tmpdir == null || tmpdir.isEmpty()) {
                return;
            }
            File docbase = new File(tmpdir, "tomcat-docbase");
            docbase.mkdirs();
            factory.setBaseDirectory(new File(tmpdir, "tomcat"));
            factory.setDocumentRoot(docbase);
        }
    }

    /** Boot's contract for the error controller (its own backs off) and its error attributes. */
    abstract static class ErrorControllerBase implements ErrorController {
        private final ErrorAttributes errorAttributes;

        ErrorControllerBase(ApplicationContext ctx) {
            this.errorAttributes = ctx.getBean(ErrorAttributes.class);
        }

        /** What Boot's BasicErrorController sends by default (timestamp, status, error, path). */
        Map<String, Object> errorAttributes(HttpServletRequest request) {
            return errorAttributes.getErrorAttributes(new ServletWebRequest(request), ErrorAttributeOptions.defaults());
        }
    }
}
