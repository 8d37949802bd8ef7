/// The little complex arithmetic the filter design needs.
struct Complex {
    var real: Double
    var imaginary: Double

    init(_ real: Double, _ imaginary: Double) { (self.real, self.imaginary) = (real, imaginary) }

    var magnitude: Double { (real * real + imaginary * imaginary).squareRoot() }

    /// The principal square root.
    func squareRoot() -> Complex {
        let r = magnitude
        let re = ((r + real) / 2).squareRoot()
        let im = ((r - real) / 2).squareRoot()
        return Complex(re, imaginary < 0 ? -im : im)
    }

    static func + (a: Complex, b: Complex) -> Complex { Complex(a.real + b.real, a.imaginary + b.imaginary) }
    static func - (a: Complex, b: Complex) -> Complex { Complex(a.real - b.real, a.imaginary - b.imaginary) }
    static func * (a: Complex, b: Complex) -> Complex {
        Complex(a.real * b.real - a.imaginary * b.imaginary, a.real * b.imaginary + a.imaginary * b.real)
    }
    static func / (a: Complex, b: Complex) -> Complex {
        let d = b.real * b.real + b.imaginary * b.imaginary
        return Complex((a.real * b.real + a.imaginary * b.imaginary) / d, (a.imaginary * b.real - a.real * b.imaginary) / d)
    }
}
