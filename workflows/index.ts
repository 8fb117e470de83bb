/** Every workflow the worker registers (workflowsPath points here). */
export { productTask } from './product-task.js';
