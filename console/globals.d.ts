// uPlot is loaded as a classic script before the modules (index.html): a global here.
declare const uPlot: typeof import('uplot')
