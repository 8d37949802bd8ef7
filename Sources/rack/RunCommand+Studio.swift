import RackHTTP
import RackOSC
import RackWire

extension RunCommand {
    /// Browses DNS-SD for the other racks on the network into `directory` (what the web page's
    /// "Racks in this studio" shows), leaving out rack's own service, advertised as `ownName`
    /// (nil: rack's HTTP is not advertised). Nil with `--no-browse`, or when Avahi's thread
    /// cannot be started (the page then says it is not browsing).
    func browseStudio(into directory: StudioDirectory, ownName: String?) -> StudioBrowser? {
        guard !noBrowse else {
            directory.setBrowsing(false)
            return nil
        }
        let browser = StudioBrowser(ownName: ownName, changed: { racks in directory.publish(racks) },
                                    daemon: { running in directory.setDaemon(running: running) })
        directory.setBrowsing(browser != nil)
        if browser == nil { warn("rack: warning: cannot browse DNS-SD for other racks (Avahi's thread did not start)") }
        return browser
    }

    /// Whether rack's own OSCQuery service is advertised (so appears to its own browser).
    var advertisesHTTP: Bool {
        !noAdvertise && OSCEndpoint(host: httpHost, port: 0).map { $0.hostOrderAddress >> 24 != 127 } == true
    }
}
