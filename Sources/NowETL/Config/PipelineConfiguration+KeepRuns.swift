extension PipelineConfiguration {
    /// `keep_runs` removes older runs' files of an output in place; publish mode `directories` already
    /// keeps whole runs, one directory each (`publish: { keep: N }`), so an output's `keep_runs` there
    /// would remove nothing and is refused rather than ignored.
    func checkKeptRuns(at codingPath: [any CodingKey]) throws {
        guard publish.mode == .directories else { return }
        guard let index = outputs.firstIndex(where: { $0.writesFiles && $0.file.keepRuns != nil }) else { return }
        let path: [any CodingKey] =
            codingPath + [
                PathKey(stringValue: "outputs"), PathKey(index: index), outputs[index].kind,
                PathKey(stringValue: "keep_runs"),
            ]
        throw ConfigIssue(
            .invalidValue, at: path,
            "\(ConfigPath(codingPath: path)) does not apply with publish mode directories: each run has its own "
                + "directory there, and publish: { keep: N } says how many stay", pointsAtKey: true)
    }
}
