// `npm start`: the demo stack. Until the BFF and the demo exist it runs the sandbox alone.
import '../server/sandbox/main';
