declare module 'js-quantities' {
  interface Qty { units(): string; kind(): string }
  interface QtyStatic {
    (unit: string): Qty
    swiftConverter(from: string, to: string): (value: number) => number
  }
  const Qty: QtyStatic
  export default Qty
}
