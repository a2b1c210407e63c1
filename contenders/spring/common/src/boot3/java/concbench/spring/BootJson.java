package concbench.spring;

import java.io.IOException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.PackageVersion;

/**
 * Jackson's API, which the shared sources use only through this class: Boot 4 ships Jackson 3,
 * whose packages are tools.jackson.* (src/boot4/java), Boot 3.5 ships Jackson 2,
 * com.fasterxml.jackson.* (src/boot3/java). The two files differ in their imports alone; the
 * annotations (com.fasterxml.jackson.annotation) are the same in both Jacksons. The MVC
 * application imports it as a bean over Boot's auto-configured mapper.
 */
public final class BootJson {
    private final ObjectMapper mapper;

    /** @param mapper Boot's auto-configured mapper (Boot 4: a JsonMapper) */
    public BootJson(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** A writer for {@code type}, from Boot's mapper. */
    public JsonWriter writerFor(Class<?> type) {
        ObjectWriter writer = mapper.writerFor(type);
        return writer::writeValueAsBytes;
    }

    /** {@code value} as JSON from a plain mapper (the ready line: nothing of Boot's). */
    static String plain(Object value) throws IOException {
        return new ObjectMapper().writeValueAsString(value);
    }

    /** jackson-databind's version (for --version). */
    static String version() {
        return PackageVersion.VERSION.toString();
    }
}
