import FuzzSupport
import TransitionConfig

/// libFuzzer's entry: the input as a config file (TOML, `[server]`,
/// `[input]`, `[filter]` and `[metrics]` included). It is read or refused
/// with a `ConfigError` naming the file; what is read renders to TOML that
/// reads back to the same config.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let file = "fuzz.toml"
    let config: DaemonConfiguration
    do {
        config = try ConfigLoader.parseDaemon(bytes: Array(UnsafeBufferPointer(start: data, count: size)), file: file)
    } catch let error as ConfigError {
        fuzzCheck(error.file == file, "the error names \(error.file)")
        fuzzCheck(error.line.map { $0 >= 1 } ?? true, "the error names line \(error.line ?? 0)")
        fuzzCheck(!error.message.isEmpty, "the error says nothing")
        return 0
    } catch {
        fuzzCheck(false, "not a ConfigError: \(error)")
        return 0
    }
    let rendered = ConfigLoader.render(config)
    do {
        let reread = try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml")
        fuzzCheck(reread == config, "the rendered config reads back otherwise:\n\(rendered)")
    } catch {
        fuzzCheck(false, "the rendered config does not read back: \(error)\n\(rendered)")
    }
    return 0
}
