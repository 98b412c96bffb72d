# The idem command in a container, built from this checkout (the image is not published):
#   docker build -t idem .
#   docker run --rm -v "$PWD:/data" -w /data idem dedup --key id --state st -o out.jsonl in.jsonl
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
RUN ./mvnw -B --no-transfer-progress package -DskipTests -pl idem-cli -am \
    && cp idem-cli/target/idem-*-linux-"$(uname -m)".tar.gz /idem.tar.gz

# only a Java runtime and the release archive of this machine's platform (bin/idem, lib/idem.jar
# with that platform's native libraries, completion, docs)
FROM eclipse-temurin:17-jre
COPY --from=build /idem.tar.gz /tmp/
RUN tar -xzf /tmp/idem.tar.gz -C /opt \
    && ln -s /opt/idem-*/bin/idem /usr/local/bin/idem \
    && rm /tmp/idem.tar.gz
ENTRYPOINT ["idem"]
