import Foundation
import RackEngine
import RackOSC
import RackWire

extension RunCommand {
    /// Binds the OSC socket on `oscHost`: the port `--osc-port` names (exit 69 when it is taken,
    /// with a hint), or without one the default port and, when another program (another rack)
    /// holds it, any free port instead, as HTTP does. The port taken is printed with the
    /// "rack: OSC on" line.
    func bindOSCSocket() throws -> UDPSocket {
        let port = oscPort ?? OSCDefaults.port
        do {
            return try UDPSocket(host: oscHost, port: port)
        } catch let error as POSIXError where error.code == .EADDRINUSE && oscPort == nil {
            do { return try UDPSocket(host: oscHost, port: 0) } catch {
                throw RackError(.unavailable, "cannot listen for OSC on \(oscHost): \(error.localizedDescription)")
            }
        } catch let error as POSIXError where error.code == .EADDRINUSE {
            throw RackError(.unavailable, "cannot listen for OSC on \(oscHost):\(port): \(error.localizedDescription) (--osc-port 0 lets the system choose)")
        } catch {
            throw RackError(.unavailable, "cannot listen for OSC on \(oscHost):\(port): \(error.localizedDescription)")
        }
    }
}
